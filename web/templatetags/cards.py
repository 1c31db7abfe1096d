"""Cards on server-rendered pages, with the same markup as static/js/cards.js `cardHTML`: a
role="img" named for screen readers ("King of spades, position 3"), the corner and pip hidden."""
from django import template
from django.utils.html import format_html
from django.utils.translation import gettext, pgettext

from engine import parse_card

register = template.Library()

SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def _rank_name(rank: str) -> str:
    names = {"A": pgettext("card rank", "Ace"), "K": pgettext("card rank", "King"),
             "Q": pgettext("card rank", "Queen"), "J": pgettext("card rank", "Jack")}
    return names.get(rank, rank)


def _suit_name(suit: str) -> str:
    return {"S": pgettext("card suit", "spades"), "H": pgettext("card suit", "hearts"),
            "D": pgettext("card suit", "diamonds"), "C": pgettext("card suit", "clubs")}[suit]


def card_name(code: str) -> str:
    card = parse_card(code)
    text = str(card)
    rank, suit = text[:-1], text[-1]
    return gettext("%(rank)s of %(suit)s") % {"rank": _rank_name(rank), "suit": _suit_name(suit)}


@register.simple_tag
def card(code: str, pos=None, match=False, cls=""):
    text = str(parse_card(code))
    rank, suit = text[:-1], text[-1]
    label = card_name(code) + (f", {gettext('position')} {pos}" if pos else "")
    classes = "card" + (" red" if suit in "HD" else "") + (" match" if match else "") + (f" {cls}" if cls else "")
    position = format_html('<span class="pos" aria-hidden="true">{}</span>', pos) if pos else ""
    return format_html(
        '<div class="{}" data-card="{}" role="img" aria-label="{}"><span class="corner" aria-hidden="true">{}<i>{}</i></span>'
        '<span class="pip" aria-hidden="true">{}</span>{}</div>',
        classes, text, label, rank, SYMBOLS[suit], SYMBOLS[suit], position)


@register.simple_tag
def card_text(code: str):
    """A card in a line of text: "K♠" seen, "King of spades" heard."""
    text = str(parse_card(code))
    rank, suit = text[:-1], text[-1]
    return format_html('<span class="card-text" data-card="{}" aria-hidden="true">{}{}</span><span class="sr-only">{}</span>',
                       text, rank, SYMBOLS[suit], card_name(code))
