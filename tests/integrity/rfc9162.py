"""A Merkle tree verifier written from RFC 9162 (Certificate Transparency 2.0), section 2.1, for the
tests to check the studio's public log and its witness against. It imports nothing of the project, so
that a mistake in the studio's tree code cannot hide behind the same mistake here.

The definitions (section 2.1.1), over a list of leaves D[n]:

    MTH({})    = SHA-256()
    MTH({d0})  = SHA-256(0x00 || d0)
    MTH(D[n])  = SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n])), k the largest power of two < n

`inclusion_path` and `consistency_proof` follow the recursive definitions of 2.1.3.1 and 2.1.4.1
literally (slow, and meant to be); `verify_inclusion` and `verify_consistency` are the iterative
algorithms of 2.1.3.2 and 2.1.4.2, step by step.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """k, the largest power of two smaller than n (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def root_from_leaves(leaves: Sequence[bytes]) -> bytes:
    """MTH(D[n]) by its recursive definition."""
    n = len(leaves)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return leaf_hash(leaves[0])
    k = _split(n)
    return node_hash(root_from_leaves(leaves[:k]), root_from_leaves(leaves[k:]))


def inclusion_path(leaves: Sequence[bytes], m: int) -> list[bytes]:
    """PATH(m, D[n]) of 2.1.3.1: the audit path of leaf m, leaf to root."""
    n = len(leaves)
    if not 0 <= m < n:
        raise ValueError(f"leaf {m} is not in a tree of {n}")
    if n == 1:
        return []
    k = _split(n)
    if m < k:
        return inclusion_path(leaves[:k], m) + [root_from_leaves(leaves[k:])]
    return inclusion_path(leaves[k:], m - k) + [root_from_leaves(leaves[:k])]


def consistency_proof(leaves: Sequence[bytes], m: int) -> list[bytes]:
    """PROOF(m, D[n]) of 2.1.4.1, for 0 < m <= n (empty when m == n)."""
    if not 0 < m <= len(leaves):
        raise ValueError(f"no consistency proof from {m} to {len(leaves)}")
    return _subproof(m, leaves, True)


def _subproof(m: int, leaves: Sequence[bytes], whole: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if whole else [root_from_leaves(leaves)]
    k = _split(n)
    if m <= k:
        return _subproof(m, leaves[:k], whole) + [root_from_leaves(leaves[k:])]
    return _subproof(m - k, leaves[k:], False) + [root_from_leaves(leaves[:k])]


def verify_inclusion(leaf_hash: bytes, index: int, size: int, path: Sequence[bytes], root: bytes) -> bool:
    """2.1.3.2: does `path` prove that the leaf with this hash is leaf `index` of the tree of `size`
    leaves whose root is `root`?"""
    if not 0 <= index < size:
        return False
    fn, sn = index, size - 1
    r = leaf_hash
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> bool:
    """2.1.4.2: does `proof` show that the tree of `old_size` leaves with `old_root` is a prefix of
    the tree of `new_size` leaves with `new_root`? The RFC's algorithm is for 0 < old_size <
    new_size; the two edge cases take the definitions of 2.1.4.1: the same size proves itself with
    an empty proof and equal roots, and every tree extends the empty one (no hashes to check)."""
    if not 0 <= old_size <= new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof
    # 1. An empty path fails.
    if not proof:
        return False
    path = list(proof)
    # 2. When the old tree is a perfect subtree, its root is the path's implicit first element.
    if old_size & (old_size - 1) == 0:
        path.insert(0, old_root)
    # 3.-4. Skip the levels where the old tree's last leaf is a right child.
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    # 5. Both roots start from the first element.
    fr = sr = path[0]
    # 6. Fold in each further element.
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    # 7. Both roots match and the path was used up exactly at the new root.
    return fr == old_root and sr == new_root and sn == 0
