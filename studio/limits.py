"""The largest request body the studio takes, in bytes: the web server refuses a longer one (studio.http)
before reading it, and Django (settings.DATA_UPLOAD_MAX_MEMORY_SIZE, studio.middleware.refuse_large_bodies)
wherever the server is not in front.

Every body the studio reads is small and its size known: a bet or a card is some fifty bytes, a
match's fifty bets under 3 KB, a table's settings and an operator's launch under 2 KB. The largest
is a login with a password at its limit (4,096 characters, accounts.api): 49,152 bytes when a
client escapes each character as JSON's twelve-byte surrogate pair (`\\ud83d\\ude00`); notes of 2,000
characters escaped that way are 24,000. 64 KiB holds each of them with room to spare.
"""
from __future__ import annotations

MAX_BODY = 64 * 1024

# The refusal's body (413), in the API's error shape, wherever it is answered.
TOO_LARGE = {"code": "too_large", "fields": {},
             "message": f"The request body is larger than {MAX_BODY} bytes ({MAX_BODY // 1024} KiB), the most the studio takes."}
