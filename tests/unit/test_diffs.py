"""What changed between two versions of a post: line diffs and one-line fields."""

from hypothesis import given
from hypothesis import strategies as st

from cms.diffs import ADDED, GAP, REMOVED, SAME, DiffLine, diff_lines, field_changes

TWENTY = "\n".join(f"line {n}" for n in range(20))


def test_equal_texts_have_no_diff():
    """Nothing changed: no lines at all."""
    assert diff_lines(TWENTY, TWENTY) == []
    assert diff_lines("", "") == []


def test_a_changed_line_shows_as_removed_then_added_with_context():
    """The old line, the new one, three unchanged lines either side, gaps beyond."""
    lines = diff_lines(TWENTY, TWENTY.replace("line 10", "line ten"))
    assert lines == [
        DiffLine(GAP, ""),
        *[DiffLine(SAME, f"line {n}") for n in (7, 8, 9)],
        DiffLine(REMOVED, "line 10"),
        DiffLine(ADDED, "line ten"),
        *[DiffLine(SAME, f"line {n}") for n in (11, 12, 13)],
        DiffLine(GAP, ""),
    ]


def test_a_change_at_the_start_has_no_leading_gap():
    """A gap only stands for unchanged lines that are left out."""
    lines = diff_lines(TWENTY, "new first\n" + TWENTY)
    assert lines[0] == DiffLine(ADDED, "new first")
    assert lines[-1] == DiffLine(GAP, "")


def test_a_change_at_the_end_has_no_trailing_gap():
    """The last line changed: the diff ends with it."""
    lines = diff_lines(TWENTY, TWENTY + "\nnew last")
    assert lines[-1] == DiffLine(ADDED, "new last")
    assert lines[0] == DiffLine(GAP, "")


def test_two_distant_changes_are_separated_by_a_gap():
    """Unchanged lines between far-apart changes are left out once."""
    new = TWENTY.replace("line 1\n", "line one\n").replace("line 18", "line eighteen")
    kinds = [line.kind for line in diff_lines(TWENTY, new)]
    assert kinds.count(GAP) == 1 and kinds.count(ADDED) == 2 and kinds.count(REMOVED) == 2


@given(
    st.lists(st.sampled_from(["a", "b", "c", ""]), max_size=12),
    st.lists(st.sampled_from(["a", "b", "d"]), max_size=12),
)
def test_full_context_rebuilds_both_texts(old, new):
    """With context enough to show everything, the old lines and the new lines can be read back."""
    lines = diff_lines("\n".join(old), "\n".join(new), context=100)
    assert [ln.text for ln in lines if ln.kind in (SAME, REMOVED)] == "\n".join(
        old
    ).splitlines() or lines == []
    assert [ln.text for ln in lines if ln.kind in (SAME, ADDED)] == "\n".join(new).splitlines() or lines == []


def test_field_changes_lists_only_the_fields_that_differ():
    """Fields keep the old mapping's order; equal ones are left out."""
    old = {"Title": "A", "Slug": "a", "Tags": "x"}
    new = {"Title": "B", "Slug": "a", "Tags": ""}
    assert [(c.field, c.old, c.new) for c in field_changes(old, new)] == [
        ("Title", "A", "B"),
        ("Tags", "x", ""),
    ]
