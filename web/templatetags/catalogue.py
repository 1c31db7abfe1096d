"""`{% catalogue_url LANG %}`: the URL of that language's script catalogue (web/catalogue.py)."""
from django import template

from web.catalogue import catalogue_url as url_of

register = template.Library()


@register.simple_tag
def catalogue_url(language: str) -> str:
    return url_of(language)
