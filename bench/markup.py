"""Rendering hostile Markdown: the worst shape of each kind against an ordinary comment.

Comments are rendered once, when they are posted, inside the request, so whatever a
stranger can type must render quickly. This builds texts of the greatest length a
comment may have (COMMENTS_MAX_LENGTH) in every shape known to make Markdown parsers
slow or deep (nesting, unclosed openers, reference definitions, entity floods, raw
HTML, each block construct, mixtures) and times infra.markup.render_comment on each,
beside an ordinary comment of the same length measured in the same run. Posts
(render_post, at the editor's CONTENT_MAX_LENGTH) are timed too with --posts.

    .venv/bin/python bench/markup.py [--repeat 5] [--posts] [--length N]

Each figure is the slowest of --repeat renders, in ms of this process's CPU time. The
growth column renders each text at a quarter of the length too: time linear in the
text grows about 4x between the two, a quadratic one about 16x (small texts are noisy).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# An ordinary comment: a few paragraphs, emphasis, a link, a list, code and a quote.
ORDINARY = """Thanks for the write-up, this matches what we saw in *production* last week.

A few notes:

- the **index** on `discussion_id` helped most
- we kept the [old cursor code](https://example.com/notes/cursors) for a while
- pagination got 3x faster

> Measure before you cut.

```python
for page in pages:
    print(page.number)
```

Would you share the numbers for the 10,000-comment case?
Cheers,
Ada

"""


def fill(unit: str, length: int) -> str:
    """`unit` repeated, cut to exactly `length` characters."""
    return (unit * (length // len(unit) + 1))[:length]


def ordinary(length: int) -> str:
    """Ordinary comments one after another, `length` characters in all."""
    return fill(ORDINARY, length)


def _nested_list_lines(length: int) -> str:
    lines, depth = [], 0
    while sum(map(len, lines)) < length:
        lines.append("  " * depth + "- item\n")
        depth += 1
    return "".join(lines)[:length]


def _growing_backtick_runs(length: int) -> str:
    parts, run = [], 1
    while sum(map(len, parts)) < length:
        parts.append("e" + "`" * run)
        run += 1
    return "".join(parts)[:length]


def _many_reference_definitions(length: int) -> str:
    half = length // 2
    definitions = "".join(f"[r{i}]: https://example.com/{i} 'title {i}'\n" for i in range(half // 30))
    return (definitions[:half] + "\n\n" + fill("[r1] [r2][r3] ", length))[:length]


def _wide_table(length: int) -> str:
    columns = length // 8
    header = "|a" * columns + "|\n" + "|-" * columns + "|\n"
    return (header + fill("x\n", length))[:length]


def _mixture(length: int, seed: int) -> str:
    rng = random.Random(seed)
    units = sorted(UNITS.values())
    parts, size = [], 0
    while size < length:
        part = rng.choice(units) * rng.randint(1, 40)
        parts.append(part)
        size += len(part)
    return "".join(parts)[:length]


# A short text repeated to the length: each opens, nests or floods one construct.
UNITS = {
    # deep nesting
    "nested list markers": "- ",
    "nested ordered markers": "1. ",
    "nested star markers": "* ",
    "nested quotes": ">",
    "nested quotes and lists": "> - ",
    "nested lists and quotes": "- > ",
    "nested emphasis openers": "*a ",
    "nested strong and emphasis": "**a *a ",
    "nested links": "[a",
    "nested images": "![a",
    # unclosed openers, long runs of one character
    "open brackets": "[",
    "image openers": "![",
    "stars": "*",
    "underscores": "_",
    "backticks": "`",
    "less-than signs": "<",
    "ampersands": "&",
    "backslashes": "\\",
    "tildes": "~",
    "pipes": "|",
    "hashes": "#",
    "equals signs": "=",
    "exclamation marks": "!",
    "closing brackets": "]",
    "parentheses": "(",
    # emphasis delimiters that do not pair
    "emphasis openers without closers": "_a ",
    "emphasis closers without openers": "a_ ",
    "stars in threes": "a**b c* ",
    "alternating stars and underscores": "*_",
    "intraword stars": "a*b",
    # links, images and references that never close
    "link openers with emphasis": "[ a_",
    "bracket and parenthesis pattern": "[ (](",
    "unclosed link destinations": "[a](b",
    "unclosed angle destinations": "[a](<b",
    "unclosed link titles": '[a](b "c',
    "empty links": "[]()",
    "empty images": "![]()",
    "undefined references": "[a][b]",
    "reference definition openers": "[a]: ",
    "unclosed reference titles": "[a]: b 'c\n",
    "repeated reference definitions": "[a]: https://example.com/a\n",
    "autolink openers": "<http://",
    "email autolink openers": "<a@b.",
    "autolinks": "<https://example.com/>",
    # raw HTML
    "tag openers": "<a ",
    "unclosed attributes": "<a href='",
    "comment openers": "<!--",
    "processing instructions": "<?",
    "declarations": "<!A",
    "cdata openers": "<![CDATA[",
    "nested divs": "<div>",
    "nested raw lists": "<ul>",
    "nested raw quotes": "<blockquote>",
    "formatting tags": "<b><i>",
    "misnested formatting": "<a><p>",
    "table tags": "<table><tr><td>",
    "closing tags": "</p>",
    "script openers": "<script>",
    # entities
    "named entities": "&amp;",
    "unterminated entities": "&copy",
    "numeric entities": "&#123456789;",
    "hex entity openers": "&#x",
    "long entity names": "&" + "a" * 30 + ";",
    # block constructs
    "fences": "```\n",
    "tilde fences": "~~~\n",
    "indented code lines": "    code\n",
    "setext underlines": "a\n=\n",
    "headings": "# a\n",
    "thematic breaks": "---\n",
    "hard breaks": "a  \n",
    "backslash breaks": "a\\\n",
    "blank lines": "\n",
    "spaces": " ",
    "tabs": "\t",
    "tabbed list markers": "\t- ",
    "carriage returns": "a\r\n\r",
    "nul characters": "\x00",
    "flat list items": "- a\n",
    "loose list items": "- a\n\n",
    "quoted lines": "> a\n",
    "lazy quoted list lines": "> - a\nb\n",
    "table rows": "| a | b |\n",
}

# Texts that are not one unit repeated.
_BUILT = {
    "indented nested list": _nested_list_lines,
    "growing backtick runs": _growing_backtick_runs,
    "nested brackets then closers": lambda n: fill("[", n // 2) + fill("]", n - n // 2),
    "nested emphasis around a word": lambda n: fill("*", n // 2) + "a" + fill("*", n - n // 2 - 1),
    "nested image links then destinations": lambda n: fill("![", n // 2) + fill("](u)", n - n // 2),
    "unclosed fence then text": lambda n: "```\n" + fill("a *b* [c](d)\n", n - 4),
    "long reference label": lambda n: ("[" + "a" * 999 + "]: u\n\n" + fill("[" + "a" * 999 + "] ", n))[:n],
    "many reference definitions": _many_reference_definitions,
    "wide table with short rows": _wide_table,
    "one long line": lambda n: fill("word *em* [l](u) ", n),
    "raw lists then paragraphs": lambda n: fill("<ul>", n // 2) + "\n\n" + fill("a\n\n", n - n // 2 - 2),
    "raw definition lists then rules": lambda n: fill("<dl>", n * 7 // 10) + "\n\n" + fill("---\n", n - n * 7 // 10 - 2),
    "a few raw lists then paragraphs": lambda n: fill("<ul>", 800) + "\n\n" + fill("a\n\n", n - 802),
    "mixture 1": lambda n: _mixture(n, 1),
    "mixture 2": lambda n: _mixture(n, 2),
    "mixture 3": lambda n: _mixture(n, 3),
}


def corpus(length: int) -> dict[str, str]:
    """Every hostile shape, each exactly `length` characters long, by name."""
    texts = {name: fill(unit, length) for name, unit in UNITS.items()}
    texts.update((name, build(length)) for name, build in _BUILT.items())
    return texts


def worst_ms(render, text: str, repeat: int) -> float:
    """The slowest of `repeat` renders of `text`, in ms of CPU time."""
    slowest = 0.0
    for _ in range(repeat):
        start = time.process_time()
        render(text)
        slowest = max(slowest, time.process_time() - start)
    return slowest * 1000


def report(render, length: int, repeat: int, label: str) -> None:
    """One table: each shape's worst time at `length`, against an ordinary text's."""
    baseline = worst_ms(render, ordinary(length), repeat)
    single = worst_ms(render, ORDINARY, repeat)
    print(f"\n{label} of {length:,} characters, slowest of {repeat} renders (CPU ms)")
    print(f"  one ordinary comment ({len(ORDINARY)} characters): {single:.2f} ms")
    print(f"  ordinary comments, {length:,} characters: {baseline:.2f} ms\n")
    rows = []
    quarter = corpus(length // 4)
    for name, text in corpus(length).items():
        ms = worst_ms(render, text, repeat)
        growth = ms / max(worst_ms(render, quarter[name], repeat), 0.01)
        rows.append((ms, name, growth))
    print(f"  {'shape':<40} {'ms':>8} {'x ordinary':>11} {'growth x4':>10}")
    for ms, name, growth in sorted(rows, reverse=True):
        print(f"  {name:<40} {ms:8.2f} {ms / baseline:11.2f} {growth:10.1f}")
    worst_ms_, worst_name, _ = max(rows)
    print(f"\n  worst: {worst_name}, {worst_ms_:.2f} ms ({worst_ms_ / baseline:.2f}x ordinary)")


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.django_setup import setup

    setup()
    from comments import conf
    from dashboard.post_forms import CONTENT_MAX_LENGTH
    from infra.markup import render_comment, render_post

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--length", type=int, default=conf.get().max_length,
                        help="comment length (default COMMENTS_MAX_LENGTH)")
    parser.add_argument("--posts", action="store_true", help="time render_post at CONTENT_MAX_LENGTH too")
    args = parser.parse_args()
    report(render_comment, args.length, args.repeat, "Comments")
    if args.posts:
        report(render_post, CONTENT_MAX_LENGTH, max(1, args.repeat // 2), "Posts")


if __name__ == "__main__":
    main()
