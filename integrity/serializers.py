"""The shape of a round's record (integrity.record; GET /api/rounds/{id}/record/, docs/AUDIT.md).
Every instant is UTC ISO 8601 to the millisecond (2026-12-01T18:43:44.123Z), every amount a string."""
from rest_framework import serializers

INSTANT = "UTC, ISO 8601, to the millisecond."


def _instant(help_text: str = INSTANT, **kwargs) -> serializers.CharField:
    return serializers.CharField(help_text=help_text, **kwargs)


class RecordTableSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class RecordRoundSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = RecordTableSerializer()
    joker = serializers.CharField()
    first_side = serializers.CharField()
    status = serializers.CharField()
    winner = serializers.CharField(allow_null=True)
    cards_dealt = serializers.IntegerField()
    opened_at = _instant()
    closes_at = _instant("When betting was due to close. " + INSTANT)
    closed_at = _instant(allow_null=True)
    finished_at = _instant(allow_null=True)
    settled_at = _instant("The latest settlement. " + INSTANT, allow_null=True)
    multipliers_commit = serializers.CharField(required=False, help_text="A table with random multipliers: SHA-256 of the round's seed.")
    multipliers = serializers.ListField(child=serializers.DictField(), required=False, allow_null=True,
                                        help_text='The drawn [{"spot", "multiplier"}], once betting closed.')
    multipliers_seed = serializers.CharField(required=False, allow_null=True, help_text="The seed (hex), once betting closed.")


class RecordShiftSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    started_at = _instant()
    ended_at = _instant(allow_null=True)


class RecordCardSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    side = serializers.CharField()
    card = serializers.CharField()
    dealt_at = _instant("When the card was dealt (match it to the camera's recording). " + INSTANT)


class RecordNoteSerializer(serializers.Serializer):
    at = serializers.CharField(help_text="ISO 8601 with its offset, as the note was written.")
    by = serializers.CharField()
    text = serializers.CharField(allow_blank=True)


class RecordIncidentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.CharField()
    raised_by = serializers.CharField()
    raised_at = _instant()
    notes = RecordNoteSerializer(many=True)
    resolution = serializers.CharField(allow_blank=True)
    resolved_by = serializers.CharField(allow_null=True)
    resolved_at = _instant(allow_null=True)


class RecordCorrectionSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="Its event's seq in the chain.")
    at = _instant()
    by = serializers.CharField(allow_null=True)
    action = serializers.CharField(help_text="`replace` or `remove_last`.")
    position = serializers.IntegerField(allow_null=True)
    before = serializers.CharField(allow_null=True)
    after = serializers.CharField(allow_null=True)


class RecordSpotSerializer(serializers.Serializer):
    spot = serializers.CharField()
    bets = serializers.IntegerField()
    staked = serializers.CharField()
    paid = serializers.CharField(help_text="Everything that came back (stakes included).")


class RecordSettlementSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="1 for the first settlement, one more for each re-settlement.")
    bets = serializers.IntegerField()
    staked = serializers.CharField()
    paid = serializers.CharField()
    house_result = serializers.CharField()
    settled_at = _instant(allow_null=True)


class RecordVoidSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    reason = serializers.CharField(allow_blank=True)
    bets = serializers.IntegerField()
    refunded = serializers.CharField()
    at = _instant(allow_null=True)
    by = serializers.CharField(allow_null=True)


class RecordEventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    seq = serializers.IntegerField()
    action = serializers.CharField()
    at = _instant()
    by = serializers.CharField(allow_null=True)
    form = serializers.CharField(help_text="The event's canonical form, exactly as hashed (docs/AUDIT.md).")
    digest = serializers.CharField(help_text="SHA-256 of the form, hex.")
    prev = serializers.CharField(help_text="The hash of the chain's record before it.")
    hash = serializers.CharField(help_text="SHA-256 of prev and digest (hex strings concatenated).")


class RecordLinkSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    prev = serializers.CharField()
    digest = serializers.CharField()
    hash = serializers.CharField()


class RecordGapSerializer(serializers.Serializer):
    after = serializers.IntegerField()
    before = serializers.IntegerField()


class RecordHeadSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    hash = serializers.CharField()


class RecordChainSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="`table:<id>`.")
    head = RecordHeadSerializer(help_text="The chain's last record when the record was read.")
    events = RecordEventSerializer(many=True, help_text="The round's events, in chain order.")
    links = RecordLinkSerializer(many=True, help_text="The other records between the round's first and last event: links only.")
    gaps = RecordGapSerializer(many=True, help_text="Stretches of more than 500 other records, not listed.")


class RecordLogEntrySerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="The leaf's index in the public log.")
    leaf = serializers.CharField(help_text="base64 of the leaf's bytes: the outcome's canonical JSON.")
    proof = serializers.ListField(child=serializers.CharField(), help_text="RFC 9162 inclusion proof against `checkpoint` (base64 hashes).")


class RecordLogSerializer(serializers.Serializer):
    checkpoint = serializers.CharField(allow_null=True, help_text="The log's latest checkpoint (a signed note, with its cosignatures).")
    entries = RecordLogEntrySerializer(many=True, help_text="The round's leaves in that checkpoint: each settlement and void.")


class RoundRecordSerializer(serializers.Serializer):
    format = serializers.CharField(help_text="`andar-bahar-round-record/1`.")
    round = RecordRoundSerializer()
    settings = serializers.DictField(help_text="The table's settings when the round opened.")
    dealer = serializers.CharField(allow_null=True)
    shift = RecordShiftSerializer(allow_null=True)
    cards = RecordCardSerializer(many=True)
    incidents = RecordIncidentSerializer(many=True)
    log = RecordLogSerializer(help_text="The round in the public log (docs/PUBLIC_LOG.md).")
    corrections = RecordCorrectionSerializer(many=True)
    spots = RecordSpotSerializer(many=True, help_text="Every player's bets added up per spot (cancelled ones left out).")
    settlement = RecordSettlementSerializer(allow_null=True)
    void = RecordVoidSerializer(allow_null=True)
    chain = RecordChainSerializer()
