"""The hook point of accounts: a reaction that goes up the layers, declared here and only here.
Every other hook is in tables/hooks.py, which accounts, below tables, cannot import; this one follows
its pattern: a Django signal, its receiver connected in the reacting app's AppConfig.ready() with a
`dispatch_uid`, run synchronously inside the sender's transaction; what must wait for the commit
the receiver puts after commit itself.

    hook                 sent by                                       connected by: the reaction
    credentials_revoked  accounts.tokens: a token revoked (an API        tables: close the WebSockets opened
                         logout), a browser session logged out (its      with them, on every web process
                         page token and its session), every token of     (tables.stream.credentials_revoked)
                         a user (tokens_revoke_all: a password set, a
                         change of roles, permissions or flags)

Sent with sender=Token, `user_id=`, `digests=`: the revoked credentials, each as
`accounts.tokens.credential_digest` of its key (a token's or a session's), and `sessions=`: True when
every session of the user is concerned too (its sockets opened with the session cookie).
"""
from django.dispatch import Signal

credentials_revoked = Signal()

HOOKS: dict[str, Signal] = {"credentials_revoked": credentials_revoked}
