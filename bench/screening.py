"""Screening what a stranger sends: the blocklist's word check (look-alike keys,
comments/internal/unicode_text.py) on the longest comment allowed (its source, and with
the HTML it renders to, which readers see), the reserved-name check,
and address normalisation. Each runs inside the posting request, before anything is
stored, so each must stay quick at the greatest size a stranger can send.

    .venv/bin/python bench/screening.py [--words 200] [--repeat 20]

Prints the median and slowest time of each, in ms of this process's CPU time, and
checks each answer is the one the page is meant to act on (the hidden word found,
the look-alike name refused, the full-width domain normalised). No database: the
reserved names are given, as comments/posting/names.py would read them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# Latin with and without marks, Devanagari, full-width and Cyrillic look-alikes, invisibles.
FILLER = "Lorem ipsum dolor sit amet, viết Hà Nội đường, नमस्ते दुनिया, ｆｕｌｌ ｗｉｄｔｈ, саt\u200bs. "


def timed(repeat: int, run) -> tuple[float, float, object]:
    """Median and slowest CPU milliseconds of `repeat` runs, and the last answer."""
    times, answer = [], None
    for _ in range(repeat):
        start = time.process_time()
        answer = run()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times), max(times), answer


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.django_setup import setup

    setup()
    from comments import addresses
    from comments.posting import antispam, names
    from comments import conf
    from infra.markup import render_comment

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=200, help="blocked words besides the one hidden in the text")
    parser.add_argument("--repeat", type=int, default=20)
    options = parser.parse_args()

    length = conf.get().max_length
    words = [f"blocked{k}" for k in range(options.words)] + ["casino"]
    clean = (FILLER * (length // len(FILLER) + 1))[:length]
    hidden = clean[: length - 20] + " ｃаs\u200bİNO end"
    # Cyrillic capitals (С, А, Ѕ, І, О) whose lower-case forms are read otherwise; markup inside the word.
    capitals = clean[: length - 20] + " САЅІNО end"
    marked = clean[: length - 20] + " cas**i**no end"
    clean_html, marked_html = render_comment(clean), render_comment(marked)
    checks = [
        ("blocked word, clean text", lambda: antispam.blocked_word(clean, words), None),
        ("blocked word, hidden at the end", lambda: antispam.blocked_word(hidden, words), "casino"),
        ("blocked word, Cyrillic capitals", lambda: antispam.blocked_word(capitals, words), "casino"),
        ("blocked word, clean, with its HTML", lambda: antispam.blocked_word(clean, words, html=clean_html), None),
        ("blocked word, in markup, its HTML", lambda: antispam.blocked_word(marked, words, html=marked_html),
         "casino"),
    ]
    reserved = names.Reserved.of([f"Author Number{k}" for k in range(200)] + ["Bruno Okafor"])
    names.reserved = lambda: reserved  # what the cache would hold
    checks.append(("reserved name (80 chars)", lambda: names.is_taken(("Ɓrunо Okafor (editor) " * 4)[:80]), True))
    checks.append(("reserved name, capitals, reordered",
                   lambda: names.is_taken(("ОKAFOR, ВRUNО (editor) " * 4)[:80]), True))
    checks.append(("address normalisation", lambda: addresses.normalise("Dave@ｔarget.test"), "dave@target.test"))

    print(f"COMMENTS_MAX_LENGTH {length}, {len(words)} blocked words, {options.repeat} runs each")
    print(f"{'check':<36} {'median ms':>10} {'slowest ms':>11}  answer")
    failed = False
    for label, run, expected in checks:
        median, slowest, answer = timed(options.repeat, run)
        ok = answer == expected
        failed = failed or not ok
        print(f"{label:<36} {median:>10.2f} {slowest:>11.2f}  {answer!r}{'' if ok else f' (expected {expected!r})'}")
    if failed:
        raise SystemExit("an answer was not the one the page acts on")


if __name__ == "__main__":
    main()
