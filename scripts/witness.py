#!/usr/bin/env python3
"""A witness of the studio's public round log: every settled and voided round, in a Merkle tree.

Run by an operator or a regulator, not by the studio. It fetches the studio's latest checkpoint,
checks that it is signed by the studio's pinned key and that it extends the last checkpoint this
witness accepted (an RFC 9162 consistency proof), cosigns it (C2SP tlog-cosignature, cosignature/v1)
and gives the cosignature back to the studio. A log that shrinks, forks, or cannot prove it grew is
refused with an ALARM: a studio showing different histories to different people is caught as soon
as one of them is a witness.

    witness.py keygen NAME KEYFILE
        makes a witness key (a signed-note private key) and prints its verifier key for the studio
    witness.py once --url BASE --log-key VKEY --key KEYFILE --state STATEFILE
    witness.py run  --url BASE --log-key VKEY --key KEYFILE --state STATEFILE --every SECONDS

VKEY is the studio's verifier key, `GET BASE/api/log/key/`, fetched once and pinned. STATEFILE holds
the last checkpoint accepted (created on the first run). Exit status: 0 accepted (one line saying
the size); 1 the studio could not be checked or refused the cosignature (nothing accepted; `run`
retries at the next interval); 2 bad usage, key or state file; 3 ALARM: the studio signed a
checkpoint inconsistent with one already accepted (`run` stops).

Standard library plus `cryptography` (Ed25519); copy this one file anywhere.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import http.client
import json
import os
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ED25519 = 0x01  # signed-note signature type of the log's key
COSIGNATURE_V1 = 0x04  # of a witness's cosignature/v1 key
DASH = "\u2014 "
TIMEOUT = 30


class Failure(Exception):
    """Nothing accepted this time (exit 1)."""


class Alarm(Exception):
    """The studio signed a checkpoint inconsistent with one accepted (exit 3)."""


# Signed-note keys: a key id binds a name, a signature type and a public key.

def key_id(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def parse_key(text: str, kind: int, prefix: str = "") -> tuple[str, bytes, bytes]:
    """`[prefix]name+hex id+base64(kind || 32 bytes)` as (name, id, the 32 bytes). The name holds
    no '+', base64 may: split on the first two."""
    if not text.startswith(prefix) or text.count("+") < prefix.count("+") + 2:
        raise ValueError("not a signed-note key")
    name, hex_id, data = text[len(prefix):].split("+", 2)
    raw = base64.b64decode(data, validate=True)
    if not name or any(c.isspace() for c in name) or len(raw) != 33 or raw[0] != kind:
        raise ValueError(f"not a signed-note key of type 0x{kind:02x}")
    return name, bytes.fromhex(hex_id), raw[1:]


def vkey(name: str, kind: int, public: bytes) -> str:
    return f"{name}+{key_id(name, kind, public).hex()}+{base64.b64encode(bytes([kind]) + public).decode()}"


def load_log_key(text: str) -> tuple[str, bytes, Ed25519PublicKey]:
    name, kid, public = parse_key(text.strip(), ED25519)
    if kid != key_id(name, ED25519, public):
        raise ValueError("the key id does not match the key")
    return name, kid, Ed25519PublicKey.from_public_bytes(public)


def load_witness_key(path: str) -> tuple[str, bytes, Ed25519PrivateKey]:
    with open(path, encoding="ascii") as f:
        name, kid, seed = parse_key(f.read().strip(), COSIGNATURE_V1, prefix="PRIVATE+KEY+")
    private = Ed25519PrivateKey.from_private_bytes(seed)
    if kid != key_id(name, COSIGNATURE_V1, public_bytes(private)):
        raise ValueError("the key id does not match the key")
    return name, kid, private


def public_bytes(private: Ed25519PrivateKey) -> bytes:
    return private.public_key().public_bytes_raw()


# Checkpoints (C2SP tlog-checkpoint in a signed note).

def open_checkpoint(note: str, log_key: tuple[str, bytes, Ed25519PublicKey]) -> tuple[str, str, int, bytes]:
    """Verify the studio's signature on a checkpoint: (body, origin, size, root). Lines of other
    keys (witnesses' cosignatures) are ignored; every line of the studio's key must verify."""
    name, kid, public = log_key
    split = note.rfind("\n\n")
    if split < 0 or not note.endswith("\n"):
        raise Failure("the checkpoint is not a signed note")
    body, signatures = note[:split + 1], note[split + 2:].split("\n")[:-1]
    verified = False
    for line in signatures:
        if not line.startswith(DASH) or line.count(" ") != 2:
            raise Failure(f"not a signature line: {line!r}")
        signer, _, data = line[len(DASH):].partition(" ")
        try:
            raw = base64.b64decode(data, validate=True)
        except ValueError:
            raise Failure(f"not a signature line: {line!r}") from None
        if signer != name or raw[:4] != kid:
            continue
        try:
            public.verify(raw[4:], body.encode())
        except InvalidSignature:
            raise Failure(f"the checkpoint's signature by {name} does not verify") from None
        verified = True
    if not verified:
        raise Failure(f"the checkpoint is not signed by {name}")
    lines = body.split("\n")
    size = lines[1] if len(lines) >= 4 else ""
    if not lines[0] or not (size.isascii() and size.isdigit()) or (size != "0" and size.startswith("0")):
        raise Failure("the checkpoint's body is not origin, size, root")
    try:
        root = base64.b64decode(lines[2], validate=True)
    except ValueError:
        root = b""
    if len(root) != 32:
        raise Failure("the checkpoint's root is not a base64 SHA-256 hash")
    return body, lines[0], int(size), root


def cosign(body: str, witness_key: tuple[str, bytes, Ed25519PrivateKey], when: int) -> str:
    """The cosignature/v1 line on a checkpoint body (no trailing newline)."""
    name, kid, private = witness_key
    signature = private.sign(f"cosignature/v1\ntime {when}\n{body}".encode())
    return f"{DASH}{name} {base64.b64encode(kid + when.to_bytes(8, 'big') + signature).decode()}"


# RFC 9162, section 2.1.

def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: list[bytes]) -> bool:
    """RFC 9162 2.1.4.2 (for 0 < old < new; an equal size needs equal roots and no proof, and any
    tree extends the empty one)."""
    if not 0 <= old_size <= new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof
    if not proof:
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # the old tree is a perfect subtree: its root starts the path
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == old_root and sr == new_root and sn == 0


# The studio's endpoints.

def request(method: str, url: str, data: bytes | None = None) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"} if data else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers, method=method), timeout=TIMEOUT) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (OSError, http.client.HTTPException) as e:  # URLError is an OSError
        raise Failure(f"{method} {url}: {e}") from None


def get(url: str) -> bytes:
    status, content = request("GET", url)
    if status != 200:
        raise Failure(f"GET {url}: {status} {content[:500].decode(errors='replace')}")
    return content


def fetch_proof(base: str, old_size: int, new_size: int) -> list[bytes]:
    query = urllib.parse.urlencode({"from": old_size, "to": new_size})
    try:
        hashes = json.loads(get(f"{base}/api/log/proof/consistency/?{query}"))["hashes"]
        if not isinstance(hashes, list):
            raise TypeError
        return [base64.b64decode(h, validate=True) for h in hashes]
    except (ValueError, KeyError, TypeError):
        raise Failure("the consistency proof is not {\"hashes\": [base64, ...]}") from None


# One round of witnessing.

def witness_once(args, log_key, witness_key) -> str:
    base = args.url.rstrip("/")
    try:
        note = get(f"{base}/api/log/checkpoint/").decode("utf-8")
    except UnicodeDecodeError:
        raise Failure("the checkpoint is not UTF-8") from None
    body, origin, size, root = open_checkpoint(note, log_key)
    state = read_state(args.state)
    if state is not None:
        old_size, old_root = state["size"], base64.b64decode(state["root"])
        if state["origin"] != origin:
            raise Failure(f"the checkpoint is of log {origin!r}, the state of {state['origin']!r}")
        if size < old_size:
            raise Alarm(f"the log shrank: size {size} after size {old_size} was accepted")
        if size == old_size and root != old_root:
            raise Alarm(f"fork: two roots for size {size} ({state['root']} accepted, {b64(root)} now)")
        # Every tree extends the empty one: from size 0 there is nothing to prove.
        if 0 < old_size < size and not verify_consistency(old_size, size, old_root, root, fetch_proof(base, old_size, size)):
            raise Alarm(f"the studio cannot prove that size {size} extends size {old_size}: inconsistent proof")
    line = cosign(body, witness_key, int(time.time()))
    status, answer = request("POST", f"{base}/api/log/cosignatures/", json.dumps({"checkpoint": note, "cosignature": line}).encode())
    if status != 201:
        raise Failure(f"the studio did not take the cosignature: {status} {answer[:500].decode(errors='replace')}")
    write_state(args.state, {"origin": origin, "size": size, "root": b64(root)})
    return f"accepted {origin} size {size}"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def read_state(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            state = json.load(f)
    except FileNotFoundError:
        return None
    if not (isinstance(state, dict) and isinstance(state.get("size"), int) and state["size"] >= 0 and isinstance(state.get("origin"), str)
            and isinstance(state.get("root"), str) and len(base64.b64decode(state["root"], validate=True)) == 32):
        raise ValueError(f"{path} is not a witness state")
    return state


def write_state(path: str, state: dict) -> None:
    """Write beside the file, flush to disk, then rename over it: a crash leaves the old state or
    the new one, never a torn file."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".witness-state-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def keygen(name: str, path: str) -> str:
    if not name or "+" in name or any(c.isspace() for c in name):
        raise ValueError("a key name has no '+' and no spaces")
    private = Ed25519PrivateKey.generate()
    public = public_bytes(private)
    seed = private.private_bytes_raw()
    text = f"PRIVATE+KEY+{name}+{key_id(name, COSIGNATURE_V1, public).hex()}+{base64.b64encode(bytes([COSIGNATURE_V1]) + seed).decode()}\n"
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="ascii") as f:
        f.write(text)
    return vkey(name, COSIGNATURE_V1, public)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser("keygen", help="make a witness key and print its verifier key")
    generate.add_argument("name")
    generate.add_argument("keyfile")
    for command in ("once", "run"):
        sub = commands.add_parser(command, help="witness the latest checkpoint" + (", every --every seconds" if command == "run" else ""))
        sub.add_argument("--url", required=True, help="the studio's base URL")
        sub.add_argument("--log-key", required=True, help="the studio's verifier key, pinned")
        sub.add_argument("--key", required=True, help="this witness's private key file (keygen)")
        sub.add_argument("--state", required=True, help="the last checkpoint accepted (JSON, created on the first run)")
        if command == "run":
            sub.add_argument("--every", type=float, required=True, help="seconds between checkpoints")
    args = parser.parse_args(argv)
    try:
        if args.command == "keygen":
            print(keygen(args.name, args.keyfile))
            return 0
        log_key, witness_key = load_log_key(args.log_key), load_witness_key(args.key)
        read_state(args.state)
        if args.command == "run" and not args.every > 0:
            raise ValueError("--every takes a number of seconds above 0")
    except (OSError, ValueError) as e:
        print(f"witness: {e}", file=sys.stderr)
        return 2
    while True:
        try:
            print(witness_once(args, log_key, witness_key), flush=True)
            status = 0
        except Failure as e:
            print(f"witness: {e}", file=sys.stderr, flush=True)
            status = 1
        except Alarm as e:
            print(f"ALARM: {e}", file=sys.stderr, flush=True)
            return 3
        except (OSError, ValueError) as e:  # the state file went bad or could not be written
            print(f"witness: {e}", file=sys.stderr, flush=True)
            return 2
        if args.command == "once":
            return status
        time.sleep(args.every)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
