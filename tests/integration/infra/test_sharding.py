"""Sharding (infra/sharding.py and `shard_collections`): the commands are built by a pure
function from the shard keys each comment store declares and checked here; the command
shards the store in use (after a migration, the new one); the dev server, which is not
a mongos, is refused."""

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from comments.stores import store_switch
from infra import mongo, sharding
from devdb.cluster import find_cluster

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def not_a_cluster():
    if find_cluster(mongo.get_client().address):
        pytest.skip("the development cluster shards (tests/integration/infra/test_cluster.py)")


def test_the_command_shards_the_store_a_migration_switched_to(commands, settings):
    """After comments_migrate records a switch, the store in use is sharded, not the one
    COMMENTS_STORE names (asked of the one owner, comments.store_switch)."""
    settings.COMMENTS_STORE = "documents"
    store_switch.switch(target="embedded")
    store_switch.recorded()
    out = StringIO()
    call_command("shard_collections", "--dry-run", stdout=out)
    assert out.getvalue().splitlines() == [
        f'Would send {{"shardCollection": "{settings.MONGODB_NAME}.discussions", "key": {{"_id": "hashed"}}}}',
        f'Would send {{"shardCollection": "{settings.MONGODB_NAME}.discussion_state", "key": {{"_id": "hashed"}}}}',
        f'Would send {{"shardCollection": "{settings.MONGODB_NAME}.comment_branch_rules", "key": {{"discussion_id": "hashed"}}}}',
        f'Would send {{"shardCollection": "{settings.MONGODB_NAME}.media.chunks", "key": {{"files_id": "hashed"}}}}',
    ]


def test_the_dev_server_is_refused_and_nothing_is_sent(commands, not_a_cluster):
    """Against a server that is not a mongos, the command explains and only `hello` was sent."""
    commands.reset()
    with pytest.raises(CommandError) as refused:
        call_command("shard_collections", stdout=StringIO())
    host, port = mongo.get_client().address
    assert str(refused.value) == sharding.NOT_A_MONGOS.format(address=f"{host}:{port}")
    assert commands.names == ["hello"]


def test_rebalance_shards_on_a_server_without_shards_moves_nothing_and_says_so(commands, not_a_cluster):
    """rebalance_shards against the single node: an error saying there is nothing to
    move, and nothing but `hello` sent."""
    commands.reset()
    with pytest.raises(CommandError, match="there are no shards to move. Nothing was sent."):
        call_command("rebalance_shards", stdout=StringIO())
    assert commands.names == ["hello"]


def test_the_refusal_exits_non_zero(settings, not_a_cluster):
    """Run as a program, the refusal is an error exit with the explanation."""
    env = dict(os.environ, MONGODB_URI=mongo.server_uri(), MONGODB_NAME=settings.MONGODB_NAME,
               DJANGO_SETTINGS_MODULE="slugline.settings")
    done = subprocess.run([sys.executable, "manage.py", "shard_collections"], cwd=REPO, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert "is not a mongos" in done.stderr


def test_a_dry_run_prints_the_commands_without_a_server(commands, settings):
    """--dry-run lists the commands as Extended JSON and sends nothing."""
    settings.MONGODB_NAME = "prod"
    out = StringIO()
    commands.reset()
    call_command("shard_collections", "--dry-run", stdout=out)
    assert out.getvalue().splitlines() == [
        'Would send {"shardCollection": "prod.comments", "key": {"discussion_id": "hashed"}}',
        'Would send {"shardCollection": "prod.discussion_state", "key": {"_id": "hashed"}}',
        'Would send {"shardCollection": "prod.comment_branch_rules", "key": {"discussion_id": "hashed"}}',
        'Would send {"shardCollection": "prod.media.chunks", "key": {"files_id": "hashed"}}',
    ]
    assert commands.names == []
