"""The head of each audit chain: its last record's sequence number and hash (audit.chain)."""
from django.db import models

GENESIS = "0" * 64  # the prev_hash of a chain's first record


class ChainHead(models.Model):
    """One row per chain (`table:<id>`, `studio`). Advanced only by audit.chain.append, in the
    transaction that writes the record, under this row's lock: what serializes a chain."""

    key = models.CharField(max_length=40, unique=True)
    seq = models.BigIntegerField(default=0, help_text="The last record's chain_seq (0: none yet).")
    hash = models.CharField(max_length=64, default=GENESIS, help_text="The last record's hash (hex SHA-256).")
    prev_hash = models.CharField(max_length=64, null=True, blank=True,
                                 help_text="The hash before the last record (its prev_hash), as the last append left it.")

    class Meta:
        ordering = ["key"]

    def __str__(self):
        return f"{self.key} at {self.seq}: {self.hash[:12]}"


class ChainedRecord(models.Model):
    """A row that is a record of a chain: its number in the chain, the hash of the record before it
    and its own (audit.chain). A model lists the columns its records are hashed over in
    CHAINED_COLUMNS (attnames) and names its records' kind in CHAINED_KIND. The columns are nullable
    for rows older than the chains, which the migration numbered; every new row has them."""

    CHAINED_KIND: str = ""
    CHAINED_COLUMNS: tuple[str, ...] = ()

    chain_seq = models.BigIntegerField(null=True, blank=True, editable=False)
    prev_hash = models.CharField(max_length=64, null=True, blank=True, editable=False)
    hash = models.CharField(max_length=64, null=True, blank=True, editable=False)

    class Meta:
        abstract = True
