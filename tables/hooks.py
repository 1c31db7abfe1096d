"""The hook points of a round: every reaction that goes up the layers, declared here and only here
(but accounts' own, which sits below tables and cannot import it: accounts/hooks.py).

A service low in the layers (tables, bets, incidents) cannot import the code that reacts to its
change (a task, a match): that code sits above it. So the service sends one of these Django signals
and the reacting app connects its receiver in its AppConfig.ready(), with a `dispatch_uid` (a
receiver connected twice still runs once). Receivers run synchronously, in connection order, inside
the sender's transaction: a reaction is part of the change and rolls back with it; what must wait
for the commit (a task, a broadcast) the receiver puts after commit itself (studio.scheduling,
tables.stream). Each is sent with `sender=Round` and `rnd=`, the round as the sender just wrote it
(`round_settled` and `round_unsettling` also with `seamless`: whether a seamless operator's player bet in
it; `round_settled` also with `figures`, what the settled bets add up to, as the settlement read them
(bets.settlement.bet_figures); `card_refused`: as it is, with the refusal's `code`, once the refused deal has rolled back; its
receiver writes in the caller's transaction, if any, or its own).

    hook            sent by                                        connected by: the reaction
    betting_opened  round_open; incident_resume back into betting  tables: the close-betting timer task
    round_finished  round_finish (the match card, or on resume)    bets: the settlement task
    round_settled   bets.settlement (a settle and a re-settle)     matches: score the round; integrity: test it,
                                                                   put it in the public log; reports: add the
                                                                   round's figures
    round_unsettling  bets.settlement, bets.refunds: a settled round   reports: take the round's figures back
                    about to be re-settled or voided, its bets still
                    as settled
    round_voided    incident_void                                  matches: forget the round; integrity: count the
                                                                   void, put it in the public log; reports: count
                                                                   the void
    incident_raised incident_raise (also `incident=`)              reports: count the incident
    card_refused    card_deal (an unreadable or duplicate card)    integrity: count the refused scan
    wallet_due      bets.outbox: seamless credits and rollbacks    bets: the task that sends each (a service
                    to send (after commit; `pks=`, `eta=`, sent      reaching its own app's task, as
                    with sender=WalletTransaction)                  betting_opened does)
"""
from django.dispatch import Signal

betting_opened = Signal()
round_finished = Signal()
round_settled = Signal()
round_voided = Signal()
card_refused = Signal()
round_unsettling = Signal()
incident_raised = Signal()
wallet_due = Signal()

HOOKS: dict[str, Signal] = {
    "betting_opened": betting_opened,
    "round_finished": round_finished,
    "round_settled": round_settled,
    "round_voided": round_voided,
    "card_refused": card_refused,
    "round_unsettling": round_unsettling,
    "incident_raised": incident_raised,
    "wallet_due": wallet_due,
}
