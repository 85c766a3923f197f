"""Distinct values through an aggregation (FerretDB v1 refuses `distinct` with maxTimeMS)."""

from cms.distinct import distinct


def test_distinct_gives_each_value_once_and_skips_missing_fields(mongo_db):
    """Like MongoDB's distinct: one of each value, none for documents without the field."""
    mongo_db.scratch.insert_many([{"k": "a", "n": 1}, {"k": "a", "n": 2}, {"k": "b", "n": 3}, {"n": 4}])
    assert sorted(distinct(mongo_db.scratch, "k", {})) == ["a", "b"]
    assert distinct(mongo_db.scratch, "k", {"n": {"$gt": 2}}) == ["b"]


def test_distinct_of_an_array_field_gives_its_elements(mongo_db):
    """Array elements are the values, as distinct gives them."""
    mongo_db.scratch.insert_many([{"tags": ["x", "y"]}, {"tags": ["y"]}, {"tags": []}])
    assert sorted(distinct(mongo_db.scratch, "tags", {}, array=True)) == ["x", "y"]


def test_distinct_of_embedded_documents_and_dotted_paths(mongo_db):
    """Whole embedded documents and dotted fields both work."""
    author = {"id": 1, "name": "Ada"}
    mongo_db.scratch.insert_many(
        [{"author": author}, {"author": author}, {"author": {"id": 2, "name": "Bo"}}]
    )
    assert len(distinct(mongo_db.scratch, "author", {})) == 2
    assert sorted(distinct(mongo_db.scratch, "author.name", {})) == ["Ada", "Bo"]
