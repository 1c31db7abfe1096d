"""C2SP signed notes with Ed25519 keys: the public log's checkpoints (C2SP tlog-checkpoint), signed by
the studio, and the witnesses' cosignatures (C2SP tlog-cosignature, cosignature/v1).

    private key   PRIVATE+KEY+<name>+<8 hex key id>+<base64(0x01 || 32-byte seed)>
    verifier key  <name>+<8 hex key id>+<base64(0x01 || 32-byte public key)>
    key id        the first 4 bytes of SHA-256(name || 0x0A || alg || public key): alg 0x01 for a
                  note key, 0x04 for a cosignature/v1 key
    note          the text, a blank line, then lines "— <name> <base64(key id || signature)>"
    cosignature   "— <name> <base64(key id || 8-byte big-endian time || signature)>", the signature
                  over "cosignature/v1\\ntime <time>\\n" followed by the note's text
"""
from __future__ import annotations

import base64
import hashlib
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

ED25519, COSIGNATURE_V1 = 0x01, 0x04
DASH = "\u2014 "


class NoteError(ValueError):
    """A key or a note that does not parse or verify."""


def key_id(name: str, alg: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([alg]) + public).digest()[:4]


def _public_bytes(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True)
class SigningKey:
    name: str
    private: Ed25519PrivateKey

    @classmethod
    def generate(cls, name: str) -> SigningKey:
        if not name or any(c.isspace() or c == "+" for c in name):
            raise NoteError(f"a key's name has no spaces and no '+': {name!r}")
        return cls(name, Ed25519PrivateKey.generate())

    @classmethod
    def parse(cls, text: str) -> SigningKey:
        parts = text.strip().split("+", 4)  # base64 may hold "+": only the first four separate
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("not a signed-note private key (PRIVATE+KEY+name+id+key)")
        try:
            raw = base64.b64decode(parts[4], validate=True)
        except ValueError:
            raise NoteError("the private key's key part is not base64") from None
        if len(raw) != 33 or raw[0] != ED25519:
            raise NoteError("not an Ed25519 private key")
        key = cls(parts[2], Ed25519PrivateKey.from_private_bytes(raw[1:]))
        if key.id.hex() != parts[3].lower():
            raise NoteError("the private key's id does not match its key")
        return key

    @property
    def public(self) -> bytes:
        return _public_bytes(self.private)

    @property
    def id(self) -> bytes:
        return key_id(self.name, ED25519, self.public)

    def text(self) -> str:
        seed = self.private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return f"PRIVATE+KEY+{self.name}+{self.id.hex()}+{base64.b64encode(bytes([ED25519]) + seed).decode()}"

    def verifier(self) -> str:
        return f"{self.name}+{self.id.hex()}+{base64.b64encode(bytes([ED25519]) + self.public).decode()}"

    def sign(self, body: str) -> str:
        """The signed note of `body` (its lines each ending in a newline)."""
        if not body.endswith("\n"):
            raise NoteError("a note's text ends with a newline")
        signature = self.private.sign(body.encode())
        return f"{body}\n{DASH}{self.name} {base64.b64encode(self.id + signature).decode()}\n"


@dataclass(frozen=True)
class Verifier:
    name: str
    alg: int
    public: Ed25519PublicKey
    id: bytes

    @classmethod
    def parse(cls, text: str) -> Verifier:
        parts = text.strip().split("+", 2)
        if len(parts) != 3:
            raise NoteError("not a verifier key (name+id+key)")
        try:
            raw = base64.b64decode(parts[2], validate=True)
        except ValueError:
            raise NoteError("the verifier key's key part is not base64") from None
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
            raise NoteError("not an Ed25519 note or cosignature/v1 key")
        if key_id(parts[0], raw[0], raw[1:]).hex() != parts[1].lower():
            raise NoteError("the verifier key's id does not match its key")
        return cls(parts[0], raw[0], Ed25519PublicKey.from_public_bytes(raw[1:]), bytes.fromhex(parts[1]))


def split(note: str) -> tuple[str, list[str]]:
    """A note's text (with its final newline) and its signature lines."""
    body, sep, signatures = note.partition("\n\n")
    if not sep:
        raise NoteError("a note has a blank line before its signatures")
    lines = [line for line in signatures.split("\n") if line]
    if not lines or not all(line.startswith(DASH) for line in lines):
        raise NoteError("a note's signature lines start with an em dash")
    return body + "\n", lines


def _line(line: str) -> tuple[str, bytes]:
    name, _, b64 = line[len(DASH):].rpartition(" ")
    try:
        return name, base64.b64decode(b64, validate=True)
    except ValueError:
        raise NoteError("a signature that is not base64") from None


def verify(note: str, verifier: Verifier) -> str:
    """The note's text if a line of `verifier`'s name and id signs it (NoteError otherwise)."""
    body, lines = split(note)
    for line in lines:
        name, raw = _line(line)
        if name == verifier.name and raw[:4] == verifier.id and len(raw) == 68:
            try:
                verifier.public.verify(raw[4:], body.encode())
                return body
            except InvalidSignature:
                raise NoteError(f"the signature of {name} does not verify") from None
    raise NoteError(f"no signature of {verifier.name}")


def cosignature_time(body: str, line: str, verifier: Verifier) -> int:
    """The time of a witness's cosignature/v1 `line` on a note's text, if it verifies with its key."""
    if verifier.alg != COSIGNATURE_V1:
        raise NoteError("not a cosignature/v1 key")
    name, raw = _line(line)
    if name != verifier.name or raw[:4] != verifier.id or len(raw) != 76:
        raise NoteError(f"not a cosignature of {verifier.name}")
    (when,) = struct.unpack(">Q", raw[4:12])
    try:
        verifier.public.verify(raw[12:], f"cosignature/v1\ntime {when}\n{body}".encode())
    except InvalidSignature:
        raise NoteError(f"the cosignature of {name} does not verify") from None
    return when


def embedded_key(folder: Path, name: str) -> str:
    """The embedded studio's log signing key, made once into its data folder (readable by its owner only)."""
    path = folder / "log-signing-key"
    if not path.exists():  # written whole, then linked into place: a process starting beside this one reads one key
        folder.mkdir(parents=True, exist_ok=True)
        draft = folder / f".log-signing-key.{os.getpid()}"
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(SigningKey.generate(name).text() + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text().strip()
