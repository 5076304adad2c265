"""Files that are not routing tables (issue 56): the family asked for is named in the error,
and a file without route lines warns instead of loading silently as an empty table."""
import os

import pytest

import fibforge


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="not Linux")
def test_proc_self_status_as_ipv4_names_the_family_expected():
    with pytest.raises(ValueError) as e:
        fibforge.Table.load("/proc/self/status", family="ipv4")
    message = str(e.value)
    assert message.startswith("/proc/self/status:1: expected an IPv4 prefix"), message
    assert "found 'Name:'" in message and "ipv6" not in message


def test_a_file_of_blank_lines_warns_naming_it(tmp_path):
    path = tmp_path / "blank.txt"
    path.write_text("\n\n   \n# a comment\n")
    with pytest.warns(UserWarning, match=r"no routes in .*blank\.txt \(4 lines, all blank or comments\)"):
        t = fibforge.Table.load(path)
    assert len(t) == 0
