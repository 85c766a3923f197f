"""Feed generators that say which language each item is written in.

A feed's own language is the reader's (its fixed texts are translated); its items
are posts, each in its own. Django's generators write neither per item, so:
Atom gets `xml:lang` on each `<entry>` (the Atom way: everything inside inherits
it), RSS 2.0 a Dublin Core `<dc:language>` in each `<item>` (RSS has no attribute
for it). A feed's `item_extra_kwargs` gives the item's `language`.
"""

from django.utils.feedgenerator import Atom1Feed, Rss201rev2Feed

DUBLIN_CORE = "http://purl.org/dc/elements/1.1/"


class LanguageAtomFeed(Atom1Feed):
    def item_attributes(self, item):
        attributes = super().item_attributes(item)
        if item.get("language"):
            attributes["xml:lang"] = item["language"]
        return attributes


class LanguageRssFeed(Rss201rev2Feed):
    def rss_attributes(self):
        return {**super().rss_attributes(), "xmlns:dc": DUBLIN_CORE}

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        if item.get("language"):
            handler.addQuickElement("dc:language", item["language"])
