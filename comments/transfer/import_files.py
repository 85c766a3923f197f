"""Reading a source's file: opened with an optional progress bar, and streamed as XML
safely (`read_xml`: no entity is ever declared, resolved or fetched), one small
element at a time with its line. The Disqus and WordPress parsers read through it."""

from __future__ import annotations

import os
import xml.parsers.expat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import BinaryIO, NoReturn
from xml.etree.ElementTree import Element, TreeBuilder

from tqdm import tqdm

from comments.transfer.import_records import BadSource

XML_CHUNK = 64 * 1024
ENTITY_REFUSED = "entity declarations are refused (entity {name!r}); nothing was resolved"
EXTERNAL_REFUSED = "external DTDs and entities are refused ({what}); nothing was fetched"
# The attribute in which `read_xml` notes the line of an inner element it was asked
# for (`lines_of`); a file's own attribute of that name is overwritten.
LINE = "{urn:slugline:import}line"


def _refuse_entity(name: str, *args: object) -> NoReturn:
    raise ValueError(ENTITY_REFUSED.format(name=name))


def _refuse_external(*args: object) -> NoReturn:
    raise ValueError(EXTERNAL_REFUSED.format(what="an external entity"))


def _refuse_external_dtd(name: str, system_id: str | None, public_id: str | None,
                         has_internal_subset: bool) -> None:
    if system_id or public_id:
        raise ValueError(EXTERNAL_REFUSED.format(what=f"DTD {system_id or public_id!r}"))


def _name(expat_name: str) -> str:
    """expat's `uri}local` as ElementTree's `{uri}local`."""
    return "{" + expat_name if "}" in expat_name else expat_name


def local(name: str) -> str:
    """An element or attribute name without its namespace."""
    return name.rpartition("}")[2]


def read_xml(
    stream: BinaryIO, *, tags: Iterable[str], lines_of: Iterable[str] = ()
) -> Iterator[tuple[int, Element]]:
    """(line, element) for each outermost element whose local name is in `tags`, as
    the file is read, `XML_CHUNK` bytes at a time; nothing else is kept. Names keep
    their namespace (`{uri}local`); an inner element whose local name is in `lines_of`
    carries its own line in its LINE attribute. BadSource, with the line, for
    malformed XML, an entity declaration, an external DTD or entity: none is ever
    resolved."""
    wanted, lined = set(tags), set(lines_of)
    parser = xml.parsers.expat.ParserCreate(namespace_separator="}")
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    parser.EntityDeclHandler = _refuse_entity
    parser.UnparsedEntityDeclHandler = _refuse_entity
    parser.ExternalEntityRefHandler = _refuse_external
    parser.StartDoctypeDeclHandler = _refuse_external_dtd
    done: list[tuple[int, Element]] = []
    builder: TreeBuilder | None = None
    depth = start_line = 0

    def start(name: str, attributes: dict[str, str]) -> None:
        nonlocal builder, depth, start_line
        if builder is None:
            if local(name) not in wanted:
                return
            builder, start_line = TreeBuilder(), parser.CurrentLineNumber
        depth += 1
        kept = {_name(k): v for k, v in attributes.items()}
        if depth > 1 and local(name) in lined:
            kept[LINE] = str(parser.CurrentLineNumber)
        builder.start(_name(name), kept)

    def end(name: str) -> None:
        nonlocal builder, depth
        if builder is None:
            return
        builder.end(_name(name))
        depth -= 1
        if depth == 0:
            done.append((start_line, builder.close()))
            builder = None

    def text(data: str) -> None:
        if builder is not None:
            builder.data(data)

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, text
    while True:
        chunk = stream.read(XML_CHUNK)
        try:
            parser.Parse(chunk, not chunk)
        except xml.parsers.expat.ExpatError as exc:
            yield from done
            raise BadSource(exc.lineno, xml.parsers.expat.ErrorString(exc.code)) from None
        except ValueError as exc:
            yield from done
            raise BadSource(parser.CurrentLineNumber, str(exc)) from None
        yield from done
        done.clear()
        if not chunk:
            return


@contextmanager
def open_source(path: str, *, progress: bool = False) -> Iterator[BinaryIO]:
    """The file at `path`, opened to be read in binary; with `progress`, a progress
    bar (tqdm, on standard error) follows the bytes read."""
    with open(path, "rb") as raw:
        if not progress:
            yield raw
            return
        with tqdm.wrapattr(raw, "read", total=os.path.getsize(path), desc=os.path.basename(path)) as watched:
            yield watched
