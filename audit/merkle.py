"""Merkle tree hashing and proofs as RFC 6962 / RFC 9162 define them, over stored perfect subtrees.

    leaf hash = SHA-256(0x00 || leaf bytes)      node = SHA-256(0x01 || left || right)
    MTH(D[0:n]) = node(MTH(D[0:k]), MTH(D[k:n])), k the largest power of two below n

The store keeps the hash of every perfect subtree once it is complete: level l, index i covers the
leaves [i * 2^l, (i + 1) * 2^l). Any subtree a proof names is either such a node or, on the right
edge of the tree, a few of them folded from the right, so a root or a proof reads O(log n) stored
hashes. `perfect(level, index)` gives a stored hash; `wanted` runs an algorithm with a recorder to
list the hashes it will read, so that a caller fetches them in one query first.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

Perfect = Callable[[int, int], bytes]


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


EMPTY_ROOT = hashlib.sha256(b"").digest()


def _largest_power_below(n: int) -> int:
    """The largest power of two smaller than n (n >= 2)."""
    return 1 << ((n - 1).bit_length() - 1)


def subtree(start: int, end: int, perfect: Perfect) -> bytes:
    """MTH(D[start:end]) for a subtree a proof or a root names: a stored perfect subtree, or, on the
    right edge, the perfect pieces of end - start (largest first) folded from the right."""
    pieces = []
    at, size = start, end - start
    while size:
        level = size.bit_length() - 1
        pieces.append(perfect(level, at >> level))
        at, size = at + (1 << level), size - (1 << level)
    result = pieces[-1]
    for piece in reversed(pieces[:-1]):
        result = node_hash(piece, result)
    return result


def root(size: int, perfect: Perfect) -> bytes:
    return EMPTY_ROOT if size == 0 else subtree(0, size, perfect)


def inclusion_path(index: int, size: int, perfect: Perfect) -> list[bytes]:
    """PATH(index, D[0:size]) (RFC 9162, 2.1.3.1)."""
    if not 0 <= index < size:
        raise ValueError(f"index {index} is not in a tree of {size} leaves")
    path: list[bytes] = []

    def walk(m: int, start: int, end: int) -> None:
        n = end - start
        if n == 1:
            return
        k = _largest_power_below(n)
        if m < k:
            walk(m, start, start + k)
            path.append(subtree(start + k, end, perfect))
        else:
            walk(m - k, start + k, end)
            path.append(subtree(start, start + k, perfect))

    walk(index, 0, size)
    return path


def consistency_path(old: int, new: int, perfect: Perfect) -> list[bytes]:
    """PROOF(old, D[0:new]) (RFC 9162, 2.1.4.1); empty for old == new and for an empty old tree."""
    if not 0 <= old <= new:
        raise ValueError(f"no consistency proof from {old} to {new} leaves")
    if old == 0 or old == new:
        return []
    proof: list[bytes] = []

    def sub(m: int, start: int, end: int, complete: bool) -> None:
        n = end - start
        if m == n:
            if not complete:
                proof.append(subtree(start, end, perfect))
            return
        k = _largest_power_below(n)
        if m <= k:
            sub(m, start, start + k, complete)
            proof.append(subtree(start + k, end, perfect))
        else:
            sub(m - k, start + k, end, False)
            proof.append(subtree(start, start + k, perfect))

    sub(old, 0, new, True)
    return proof


def wanted(run: Callable[[Perfect], object]) -> set[tuple[int, int]]:
    """The stored hashes `run(perfect)` reads: (level, index) pairs."""
    seen: set[tuple[int, int]] = set()

    def recorder(level: int, index: int) -> bytes:
        seen.add((level, index))
        return b"\x00" * 32

    run(recorder)
    return seen


def frontier(size: int) -> list[tuple[int, int]]:
    """The perfect subtrees a tree of `size` leaves is made of, largest first: what an append reads."""
    out, at = [], 0
    for level in range(size.bit_length() - 1, -1, -1):
        if size >> level & 1:
            out.append((level, at >> level))
            at += 1 << level
    return out


def appended(size: int, stored: dict[tuple[int, int], bytes], leaves: Iterable[bytes]) -> dict[tuple[int, int], bytes]:
    """The perfect subtrees completed by appending `leaves` (leaf hashes) to a tree of `size` leaves,
    given its frontier's hashes in `stored`: the new (level, index) -> hash, leaves included."""
    known = dict(stored)
    new: dict[tuple[int, int], bytes] = {}
    for offset, leaf in enumerate(leaves):
        index, level, value = size + offset, 0, leaf
        new[(0, index)] = known[(0, index)] = value
        while index & 1:  # a right child completes its parent
            value = node_hash(known[(level, index - 1)], value)
            level, index = level + 1, index >> 1
            new[(level, index)] = known[(level, index)] = value
    return new
