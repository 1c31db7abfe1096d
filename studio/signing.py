"""The operators' message signatures: hex HMAC-SHA256 of a request's or an answer's raw body with the
operator's secret (docs/OPERATORS.md). One module, so that the studio, the reference wallet's
tests and the benchmark sign alike."""
from __future__ import annotations

import hashlib
import hmac


def sign(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, signature: str | None) -> bool:
    """Whether `signature` is the body's signature (constant time; a missing one never is)."""
    if not signature or not secret:
        return False
    return hmac.compare_digest(sign(secret, body), signature.strip().lower())
