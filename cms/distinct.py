"""Distinct values of a field, through an aggregation rather than `distinct`.

FerretDB v1 refuses the `distinct` command's `maxTimeMS` field, which pymongo adds
to every command of a client with `timeoutMS` (ours has one: cms/mongo.py). A
`$group` aggregation gives the same values on MongoDB and FerretDB. The collection's
owner module calls this with its own collection.
"""

from pymongo.collection import Collection


def distinct(collection: Collection, key: str, query: dict, *, array: bool = False) -> list:
    """The distinct values of `key` among the documents matching `query`, as MongoDB's
    `distinct` gives them (without the documents that lack the field). `array=True`
    for an array field: its elements are the values, as `distinct` does."""
    pipeline: list[dict] = [{"$match": query}]
    if array:
        pipeline.append({"$unwind": f"${key}"})
    pipeline.append({"$group": {"_id": f"${key}"}})
    return [doc["_id"] for doc in collection.aggregate(pipeline) if doc["_id"] is not None]
