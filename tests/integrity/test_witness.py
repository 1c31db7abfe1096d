"""The witness (scripts/witness.py) against a fake studio: an HTTP server in a thread that serves
checkpoints signed here over a list of leaves, consistency proofs made by tests/integrity/rfc9162.py,
and takes cosignatures. The witness runs as its operator runs it, a separate process; the
cosignatures it returns are checked against the C2SP formats here, by code of the tests' own. Also
the RFC 9162 verifier the tests use, against the RFC's definitions and RFC 6962's test vectors."""
import base64
import hashlib
import importlib.util
import json
import re
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tests.integrity import rfc9162

ROOT = Path(__file__).resolve().parents[2]
DASH = "\u2014 "
ORIGIN = "studio.example/andar-bahar/log"


def leaves(n, tag="round"):
    return [f'{{"round":{i},"{tag}":true}}'.encode() for i in range(n)]


def key_id(name, kind, public):
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


class FakeStudio:
    """The log's side of the protocol. Tests change `leaves`, or replace what is served with
    `note` (a checkpoint's text) or `proof` (a function of the right proof giving the one served)."""

    def __init__(self):
        self.name = ORIGIN
        self.private = Ed25519PrivateKey.generate()
        self.leaves = leaves(5)
        self.note = None
        self.proof = None
        self.checkpoint_status = 200
        self.cosignature_answer = (201, {"ok": True})
        self.cosignatures = []
        self.requests = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def public(self):
        return self.private.public_key().public_bytes_raw()

    def vkey(self):
        return f"{self.name}+{key_id(self.name, 1, self.public).hex()}+{base64.b64encode(bytes([1]) + self.public).decode()}"

    def body(self, tree=None):
        tree = self.leaves if tree is None else tree
        return f"{ORIGIN}\n{len(tree)}\n{base64.b64encode(rfc9162.root_from_leaves(tree)).decode()}\n"

    def sign(self, body, private=None, name=None):
        private, name = private or self.private, name or self.name
        raw = key_id(name, 1, private.public_key().public_bytes_raw()) + private.sign(body.encode())
        return f"{body}\n{DASH}{name} {base64.b64encode(raw).decode()}\n"

    def checkpoint(self):
        return self.note if self.note is not None else self.sign(self.body())

    def handler(self):
        studio = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, content, kind="application/json"):
                content = content if isinstance(content, bytes) else json.dumps(content).encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def do_GET(self):  # noqa: N802 (http.server's name)
                url = urllib.parse.urlsplit(self.path)
                studio.requests.append(self.path)
                if url.path == "/api/log/checkpoint/":
                    if studio.checkpoint_status != 200:
                        return self.answer(studio.checkpoint_status, {"code": "unavailable"})
                    return self.answer(200, studio.checkpoint().encode(), "text/plain; charset=utf-8")
                if url.path == "/api/log/proof/consistency/":
                    query = urllib.parse.parse_qs(url.query)
                    m, n = int(query["from"][0]), int(query["to"][0])
                    if not 0 < m <= n <= len(studio.leaves):
                        return self.answer(400, {"code": "invalid"})
                    hashes = rfc9162.consistency_proof(studio.leaves[:n], m)
                    if studio.proof:
                        hashes = studio.proof(hashes)
                    return self.answer(200, {"hashes": [base64.b64encode(h).decode() for h in hashes]})
                self.answer(404, {"code": "not_found"})

            def do_POST(self):  # noqa: N802
                if self.path != "/api/log/cosignatures/":
                    return self.answer(404, {"code": "not_found"})
                studio.cosignatures.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.answer(*studio.cosignature_answer)

        return Handler


@pytest.fixture
def studio():
    studio = FakeStudio()
    thread = threading.Thread(target=studio.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield studio
    studio.server.shutdown()
    studio.server.server_close()


def run_witness(*args):
    return subprocess.run([sys.executable, "scripts/witness.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.fixture
def witness(tmp_path, studio):
    """A witness with its key, pointed at the studio: `witness.once()` runs it once."""
    done = run_witness("keygen", "regulator.example/witness", str(tmp_path / "witness.key"))
    assert done.returncode == 0, done.stderr

    class Witness:
        vkey = done.stdout.strip()
        state = tmp_path / "state.json"
        args = ["--url", studio.url, "--log-key", studio.vkey(), "--key", str(tmp_path / "witness.key"), "--state", str(state)]

        def once(self):
            return run_witness("once", *self.args)

    return Witness()


def check_cosignature(vkey, line, checkpoint):
    """The cosignature/v1 line verifies, by the witness's verifier key, over the checkpoint's body."""
    name, hex_id, key = vkey.split("+", 2)
    raw_key = base64.b64decode(key)
    assert raw_key[0] == 0x04 and len(raw_key) == 33
    assert bytes.fromhex(hex_id) == key_id(name, 0x04, raw_key[1:])
    assert line.startswith(f"{DASH}{name} ") and not line.endswith("\n")
    raw = base64.b64decode(line.split(" ")[2], validate=True)
    assert len(raw) == 4 + 8 + 64 and raw[:4] == bytes.fromhex(hex_id)
    when = int.from_bytes(raw[4:12], "big")
    assert abs(when - time.time()) < 120
    body = checkpoint[:checkpoint.rindex("\n\n") + 1]
    Ed25519PublicKey.from_public_bytes(raw_key[1:]).verify(raw[12:], f"cosignature/v1\ntime {when}\n{body}".encode())


def state_of(witness):
    return json.loads(witness.state.read_text())


# keygen

def test_keygen_writes_a_private_key_and_prints_its_verifier_key(tmp_path):
    path = tmp_path / "w.key"
    done = run_witness("keygen", "regulator.example/w1", str(path))
    assert done.returncode == 0, done.stderr
    vkey = done.stdout.strip()
    assert re.fullmatch(r"regulator\.example/w1\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}", vkey)
    assert path.stat().st_mode & 0o777 == 0o600
    text = path.read_text().strip()
    assert text.startswith("PRIVATE+KEY+")
    name, hex_id, key = text[len("PRIVATE+KEY+"):].split("+", 2)
    seed = base64.b64decode(key)
    assert seed[0] == 0x04 and len(seed) == 33
    public = Ed25519PrivateKey.from_private_bytes(seed[1:]).public_key().public_bytes_raw()
    assert name == "regulator.example/w1" and bytes.fromhex(hex_id) == key_id(name, 0x04, public)
    assert vkey == f"{name}+{hex_id}+{base64.b64encode(bytes([4]) + public).decode()}"


def test_keygen_refuses_to_overwrite_a_key_or_take_a_bad_name(tmp_path):
    path = tmp_path / "w.key"
    assert run_witness("keygen", "w1", str(path)).returncode == 0
    before = path.read_text()
    assert run_witness("keygen", "w1", str(path)).returncode == 2
    assert path.read_text() == before
    assert run_witness("keygen", "w+1", str(tmp_path / "other.key")).returncode == 2
    assert not (tmp_path / "other.key").exists()


def test_a_bad_log_key_is_a_usage_error(witness):
    args = list(witness.args)
    args[3] = "not-a-key"
    done = run_witness("once", *args)
    assert done.returncode == 2 and "key" in done.stderr


# once: accepting and cosigning

def test_the_first_run_accepts_the_checkpoint_and_cosigns_it(studio, witness):
    done = witness.once()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines() == [f"accepted {ORIGIN} size 5"]
    [posted] = studio.cosignatures
    assert posted["checkpoint"] == studio.checkpoint()
    check_cosignature(witness.vkey, posted["cosignature"], posted["checkpoint"])
    assert state_of(witness)["size"] == 5
    assert base64.b64decode(state_of(witness)["root"]) == rfc9162.root_from_leaves(studio.leaves)
    assert not any("consistency" in r for r in studio.requests)


def test_a_grown_tree_is_accepted_with_a_valid_proof(studio, witness):
    assert witness.once().returncode == 0
    studio.leaves = leaves(12)
    # Another witness's cosignature on the studio's checkpoint is not the witness's business.
    other = Ed25519PrivateKey.generate()
    foreign = base64.b64encode(key_id("other", 4, other.public_key().public_bytes_raw()) + bytes(72)).decode()
    studio.note = studio.checkpoint() + f"{DASH}other {foreign}\n"
    done = witness.once()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"accepted {ORIGIN} size 12"
    assert "/api/log/proof/consistency/?from=5&to=12" in studio.requests
    check_cosignature(witness.vkey, studio.cosignatures[-1]["cosignature"], studio.note)
    assert studio.cosignatures[-1]["checkpoint"] == studio.note
    assert state_of(witness)["size"] == 12


@pytest.mark.parametrize("proof", [
    pytest.param(lambda hashes: [bytes([hashes[0][0] ^ 1]) + hashes[0][1:], *hashes[1:]], id="a hash altered"),
    pytest.param(lambda hashes: hashes[:-1], id="a hash missing"),
    pytest.param(lambda hashes: [], id="empty"),
])
def test_a_bad_consistency_proof_is_refused(studio, witness, proof):
    assert witness.once().returncode == 0
    studio.leaves, studio.proof = leaves(12), proof
    done = witness.once()
    assert done.returncode == 3 and "ALARM" in done.stderr
    assert len(studio.cosignatures) == 1 and state_of(witness)["size"] == 5


def test_a_rewritten_history_is_refused_even_with_a_proof_of_the_new_tree(studio, witness):
    assert witness.once().returncode == 0
    studio.leaves = leaves(5, tag="rewritten") + leaves(12)[5:]
    done = witness.once()
    assert done.returncode == 3 and "ALARM" in done.stderr
    assert len(studio.cosignatures) == 1 and state_of(witness)["size"] == 5


# once: refusing

def test_a_shrunk_tree_is_refused_with_an_alarm(studio, witness):
    assert witness.once().returncode == 0
    studio.leaves = leaves(3)
    done = witness.once()
    assert done.returncode == 3
    [alarm] = [line for line in done.stderr.splitlines() if line.startswith("ALARM")]
    assert "3" in alarm and "5" in alarm
    assert len(studio.cosignatures) == 1 and state_of(witness)["size"] == 5


def test_a_fork_same_size_other_root_is_refused_with_an_alarm(studio, witness):
    assert witness.once().returncode == 0
    studio.leaves = leaves(5, tag="forked")
    done = witness.once()
    assert done.returncode == 3 and "ALARM" in done.stderr and "fork" in done.stderr
    assert len(studio.cosignatures) == 1
    assert base64.b64decode(state_of(witness)["root"]) == rfc9162.root_from_leaves(leaves(5))


def test_the_same_checkpoint_again_is_cosigned_again(studio, witness):
    assert witness.once().returncode == 0
    done = witness.once()
    assert done.returncode == 0 and len(studio.cosignatures) == 2


@pytest.mark.parametrize("forge", [
    pytest.param(lambda s: s.sign(s.body(), private=Ed25519PrivateKey.generate()), id="another key of the same name"),
    pytest.param(lambda s: s.sign(s.body()).replace("\n5\n", "\n6\n", 1), id="body altered after signing"),
    pytest.param(lambda s: s.body() + f"\n{DASH}{s.name} " + base64.b64encode(key_id(s.name, 1, s.public) + bytes(64)).decode() + "\n",
                 id="the key id with a bad signature"),
    pytest.param(lambda s: s.body(), id="no signature"),
])
def test_a_checkpoint_not_signed_by_the_pinned_key_is_refused(studio, witness, forge):
    studio.note = forge(studio)
    done = witness.once()
    assert done.returncode == 1 and "ALARM" not in done.stderr
    assert studio.cosignatures == [] and not witness.state.exists()


def test_a_cosignature_the_studio_does_not_take_is_reported_and_nothing_saved(studio, witness):
    studio.cosignature_answer = (409, {"code": "stale_checkpoint", "message": "a newer checkpoint exists"})
    done = witness.once()
    assert done.returncode == 1
    assert "409" in done.stderr and "stale_checkpoint" in done.stderr
    assert not witness.state.exists()


# run

def wait_for(condition, seconds=20):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_run_retries_after_a_failure_cosigns_each_checkpoint_and_stops_on_an_alarm(studio, witness):
    studio.checkpoint_status = 503
    proc = subprocess.Popen([sys.executable, "scripts/witness.py", "run", *witness.args, "--every", "0.2"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: len(studio.requests) >= 2)
        studio.checkpoint_status = 200
        wait_for(lambda: studio.cosignatures)
        studio.leaves = leaves(9)
        wait_for(lambda: any(c["checkpoint"] == studio.checkpoint() for c in studio.cosignatures))
        studio.leaves = leaves(7)
        assert proc.wait(timeout=20) == 3
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out, err = proc.communicate()
    assert f"accepted {ORIGIN} size 5" in out and f"accepted {ORIGIN} size 9" in out
    assert "503" in err and "ALARM" in err
    assert state_of(witness)["size"] == 9


# The tests' RFC 9162 verifier, and the witness's consistency check against it

RFC6962_LEAVES = [bytes.fromhex(h) for h in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f")]
RFC6962_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def test_roots_match_the_rfc6962_test_vectors():
    assert rfc9162.root_from_leaves([]) == hashlib.sha256(b"").digest()
    for n, root in enumerate(RFC6962_ROOTS, 1):
        assert rfc9162.root_from_leaves(RFC6962_LEAVES[:n]).hex() == root


def tampered(path):
    """Each hash of a path with one bit flipped, the path short of its last hash, and one too long."""
    for i in range(len(path)):
        yield path[:i] + [bytes([path[i][0] ^ 1]) + path[i][1:]] + path[i + 1:]
    if path:
        yield path[:-1]
    yield path + [hashlib.sha256(b"extra").digest()]


def test_inclusion_paths_verify_for_every_leaf_of_trees_up_to_20_and_tampered_ones_do_not():
    tree = leaves(20)
    for n in range(1, 21):
        root = rfc9162.root_from_leaves(tree[:n])
        for m in range(n):
            path = rfc9162.inclusion_path(tree[:n], m)
            leaf = rfc9162.leaf_hash(tree[m])
            assert rfc9162.verify_inclusion(leaf, m, n, path, root), (m, n)
            assert not rfc9162.verify_inclusion(rfc9162.leaf_hash(b"other"), m, n, path, root)
            assert not rfc9162.verify_inclusion(leaf, n, n, path, root)
            for bad in tampered(path):
                assert not rfc9162.verify_inclusion(leaf, m, n, bad, root), (m, n, bad)
            if n > 1:
                assert not rfc9162.verify_inclusion(leaf, (m + 1) % n, n, path, root)


def load_witness_module():
    spec = importlib.util.spec_from_file_location("witness_script", ROOT / "scripts" / "witness.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_consistency_proofs_verify_for_every_pair_up_to_20_in_both_verifiers_and_tampered_ones_do_not():
    witness = load_witness_module()
    tree, other = leaves(20), leaves(20, tag="other")
    for n in range(1, 21):
        new_root = rfc9162.root_from_leaves(tree[:n])
        for m in range(1, n + 1):
            old_root = rfc9162.root_from_leaves(tree[:m])
            proof = rfc9162.consistency_proof(tree[:n], m)
            for verify in (rfc9162.verify_consistency, witness.verify_consistency):
                assert verify(m, n, old_root, new_root, proof), (verify, m, n)
                assert not verify(m, n, rfc9162.root_from_leaves(other[:m]), new_root, proof), (m, n)
                for bad in tampered(proof):
                    assert not verify(m, n, old_root, new_root, bad), (verify, m, n, bad)
                assert not verify(m, n, old_root, rfc9162.root_from_leaves(other[:n]), proof), (m, n)
    for verify in (rfc9162.verify_consistency, witness.verify_consistency):
        assert verify(0, 5, hashlib.sha256(b"").digest(), rfc9162.root_from_leaves(tree[:5]), [])
        assert not verify(5, 3, rfc9162.root_from_leaves(tree[:5]), rfc9162.root_from_leaves(tree[:3]), [])


def test_the_witness_imports_nothing_of_the_project():
    source = (ROOT / "scripts" / "witness.py").read_text()
    imported = set(re.findall(r"^(?:from|import) ([\w.]+)", source, re.M))
    assert {name.split(".")[0] for name in imported} <= {
        "__future__", "argparse", "base64", "hashlib", "http", "json", "os", "sys", "tempfile", "time", "urllib", "cryptography"}


def test_the_tests_verifier_imports_nothing_of_the_project():
    source = (ROOT / "tests" / "integrity" / "rfc9162.py").read_text()
    assert set(re.findall(r"^(?:from|import) ([\w.]+)", source, re.M)) <= {"__future__", "hashlib", "collections.abc"}
