"""Development tooling: the databases `make run`, `make test` and `make test-cluster`
start under `var/`, and their one-time builds. Not part of the running site.

    server.py         the single-node dev database (FerretDB v2 on PostgreSQL with DocumentDB)
    cluster.py        the sharded development cluster (DocumentDB on Citus)
    build.py          building the single node's parts once (packages, extensions, FerretDB)
    cluster_build.py  building what the cluster adds (Citus, the distributed extension)
    postgres.py       PostgreSQL's commands as the data's owner; the data folder
    processes.py      ports, processes, pings
    commands.py       `python -m devdb …` and `python -m devdb cluster …`; running a command

It imports nothing from the project, and nothing of Django, so it works before the
project is configured. The platform (infra/) reaches it in two places only, lazily:
`infra.mongo.server_uri` starts the dev database when MONGODB_URI is empty, and
`infra.sharding.engine_for` asks `devdb.cluster.find_cluster` whether a server is this
checkout's cluster.
"""
