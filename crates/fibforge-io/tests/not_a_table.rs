//! Files that are not routing tables: what the text reader says about them (issue 56). A
//! file read for one family names that family in its error, and a file without a route
//! line says so through [`LoadedTable::no_routes`] instead of loading as a silent empty
//! table.

use fibforge::Family;
use fibforge_io::{LoadedTable, ReadConfig, read_table, read_table_from};
use std::io::Cursor;
use std::path::Path;

fn read(text: &str, family: Option<Family>) -> Result<LoadedTable, String> {
    let cfg = ReadConfig { family, ..Default::default() };
    read_table_from(Cursor::new(text.as_bytes().to_vec()), "status", &cfg)
        .map_err(|e| e.error.to_string())
}

#[test]
fn a_process_status_file_read_as_ipv4_is_not_called_an_ipv6_address() {
    let status = "Name:\tcat\nUmask:\t0022\nState:\tR (running)\n";
    let e = read(status, Some(Family::Ipv4)).unwrap_err();
    assert_eq!(
        e,
        "status:1: expected an IPv4 prefix (such as 192.0.2.0/24) in the first column, found 'Name:'"
    );
    let e = read(status, Some(Family::Ipv6)).unwrap_err();
    assert!(e.starts_with("status:1: expected an IPv6 prefix"), "{e}");
    assert!(e.contains("found 'Name:' ('Name:' is not a valid ipv6 address)"), "{e}");
    let e = read(status, None).unwrap_err();
    assert!(e.contains("expected an IPv4 or IPv6 prefix") && e.contains("found 'Name:'"), "{e}");
    let e = read("10.0.0.0/8 a\n10.0.0/8 b\n", Some(Family::Ipv4)).unwrap_err();
    assert!(e.starts_with("status:2: expected an IPv4 prefix"), "{e}");
    assert!(e.contains("'10.0.0' is not a valid ipv4 address"), "the detail of its family: {e}");
}

#[test]
fn the_real_proc_self_status_names_the_file_the_line_and_the_family() {
    let path = Path::new("/proc/self/status");
    if !path.exists() {
        return; // not Linux
    }
    let cfg = ReadConfig { family: Some(Family::Ipv4), ..Default::default() };
    let e = read_table(path, &cfg).unwrap_err().error.to_string();
    assert!(e.starts_with("/proc/self/status:1: expected an IPv4 prefix"), "{e}");
    assert!(e.contains("found 'Name:'") && !e.contains("ipv6"), "{e}");
}

#[test]
fn a_file_of_blank_lines_and_comments_has_no_routes_and_says_so() {
    let t = read("\n\n   \n# a comment\n\t\n", None).unwrap();
    assert!(t.is_empty());
    assert_eq!(t.lines, 5);
    let note = t.no_routes("blank.txt");
    assert_eq!(note.as_deref(), Some("no routes in blank.txt (5 lines, all blank or comments)"));
    let t = read("\n10.0.0.0/8 a\n", None).unwrap();
    assert_eq!((t.lines, t.no_routes("x")), (2, None));
}
