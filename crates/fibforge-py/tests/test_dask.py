"""fibforge.dask: a Dask DataFrame read from Parquet files annotated on a two-process
distributed.LocalCluster, every row checked against the table's own single lookups.

Skipped, saying what is missing, where dask[dataframe], distributed or pyarrow is not
installed (.ci/run installs them)."""

import gzip
import ipaddress
import random

import pytest

dd = pytest.importorskip("dask.dataframe", reason="dask[dataframe] is not installed: the fibforge.dask tests are skipped")
distributed = pytest.importorskip("distributed", reason="distributed is not installed: the fibforge.dask cluster test is skipped")
pytest.importorskip("pyarrow", reason="pyarrow is not installed: the fibforge.dask Parquet test is skipped")

import dask  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import fibforge  # noqa: E402
import fibforge.dask  # noqa: E402


@pytest.fixture(scope="module")
def table(data_dir_module):
    """The real ris2015 table (origin AS values) plus IPv6 routes with dict values."""
    t = fibforge.Table.load(data_dir_module / "ris2015-as3856.tsv.gz", value="origin_as")
    t["2001:db8::/32"] = {"site": "doc"}
    t["2001:db8:1::/48"] = {"site": "doc-1"}
    return t


@pytest.fixture(scope="module")
def data_dir_module():
    import pathlib

    return pathlib.Path(__file__).resolve().parents[3] / "data"


def addresses(data_dir, n):
    """Real IPv4 addresses (a threat feed), random IPv4 ones, and IPv6 ones in and out of the
    table, shuffled."""
    with gzip.open(data_dir / "ipsum-2026-08-22.txt.gz", "rt") as f:
        real = [line.split()[0] for line in f if line[:1].isdigit()]
    rng = random.Random(20)
    out = rng.sample(real, n // 2)
    out += [str(ipaddress.IPv4Address(rng.getrandbits(32))) for _ in range(n // 4)]
    out += [f"2001:db8:{rng.choice([0, 1, 2])}::{rng.getrandbits(16):x}" for _ in range(n // 8)]
    out += [f"2a00::{rng.getrandbits(16):x}" for _ in range(n - len(out))]
    rng.shuffle(out)
    return out


def write_parquet(tmp_path, ips, files):
    """`files` Parquet files of rows (ip, row number)."""
    folder = tmp_path / "flows"
    folder.mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(ips)), files)):
        frame = pd.DataFrame({"ip": [ips[j] for j in chunk], "row": chunk.astype(np.int64)})
        frame.to_parquet(folder / f"part-{i:02}.parquet", index=False)
    return folder


def check_every_row(result, table, n):
    """Each row's value and prefix length equal the table's single lookup of its address."""
    assert len(result) == n and sorted(result["row"]) == list(range(n))
    matched = 0
    for ip, value, length in zip(result["ip"], result["asn"], result["len"]):
        route = table.lookup_prefix(ip)
        if route is None:
            assert value == "none" and length == fibforge.NO_LENGTH, ip
        else:
            matched += 1
            assert (value, int(length)) == (route[1], int(route[0].split("/")[1])), ip
    assert 0 < matched < n, "both matched and unmatched rows are checked"


def test_annotate_on_a_two_process_local_cluster(tmp_path, table, data_dir_module):
    n = 40_000
    folder = write_parquet(tmp_path, addresses(data_dir_module, n), files=6)
    # The scheduler's active memory manager drops replicas that no waiting task needs, every
    # 2 s by default; off here, so the broadcast can be observed however long the run takes.
    amm_off = {"distributed.scheduler.active-memory-manager.start": False}
    no_replica_reduction = dask.config.set(amm_off)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with no_replica_reduction, cluster, distributed.Client(cluster) as client:
        flows = dd.read_parquet(str(folder))
        assert flows.npartitions >= 2
        annotated = fibforge.dask.annotate(
            flows, "ip", table, value="asn", prefix_len="len", default="none"
        )
        assert list(annotated.columns) == ["ip", "row", "asn", "len"]
        result = client.compute(annotated).result()
        # The table went to the workers as one scattered object held by both of them.
        held = client.who_has()
        tables = [key for key in held if str(key).startswith("Table-")]
        assert len(tables) == 1 and len(held[tables[0]]) == 2, held
    check_every_row(result, table, n)


def test_annotate_without_a_cluster(tmp_path, table, data_dir_module):
    n = 5_000
    folder = write_parquet(tmp_path, addresses(data_dir_module, n), files=3)
    flows = dd.read_parquet(str(folder))
    annotated = fibforge.dask.annotate(flows, "ip", table, value="asn", prefix_len="len", default="none")
    with dask.config.set(scheduler="threads"):
        result = annotated.compute()
    check_every_row(result, table, n)
    assert result["len"].dtype == np.uint8


def test_annotate_names_a_missing_column(table):
    flows = dd.from_pandas(pd.DataFrame({"ip": ["10.0.0.1"]}), npartitions=1)
    with pytest.raises(ValueError, match="no column 'dst'"):
        fibforge.dask.annotate(flows, "dst", table)
