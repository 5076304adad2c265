use super::*;

/// A fresh scratch directory holding `old.bin` ("the old content").
fn scratch(test: &str) -> (PathBuf, PathBuf) {
    let dir =
        std::env::temp_dir().join(format!("fibforge-io-atomic-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join("old.bin");
    std::fs::write(&old, b"the old content").unwrap();
    (dir, old)
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_writer_failing_midway_leaves_the_old_file_and_nothing_else() {
    let (dir, old) = scratch("midway");
    // Past the buffer's size, so that part of the content has reached the temporary file.
    let failed = write_atomically(&old, |w| {
        w.write_all(&vec![7u8; 1 << 20])?;
        Err(io::Error::other("disk gone"))
    });
    assert_eq!(failed.unwrap_err().to_string(), "disk gone");
    assert_eq!(std::fs::read(&old).unwrap(), b"the old content");
    assert_eq!(names(&dir), ["old.bin"]);
    // A new file that fails is not created at all.
    assert!(write_atomically(&dir.join("new.bin"), |_| Err(io::Error::other("no"))).is_err());
    assert_eq!(names(&dir), ["old.bin"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_successful_write_replaces_the_file_whole() {
    let (dir, old) = scratch("replace");
    write_atomically(&old, |w| w.write_all(b"new")).unwrap();
    assert_eq!(std::fs::read(&old).unwrap(), b"new");
    let fresh = dir.join("fresh.json");
    write_atomically(&fresh, |w| w.write_all(b"{}")).unwrap();
    assert_eq!(std::fs::read(&fresh).unwrap(), b"{}");
    assert_eq!(names(&dir), ["fresh.json", "old.bin"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_uncommitted_file_is_removed_and_its_temp_name_keeps_the_extension() {
    let (dir, _) = scratch("drop");
    let mut f = AtomicFile::create(&dir.join("plot.png")).unwrap();
    f.write_all(b"partial").unwrap();
    let name = f.temp_path().file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with(".plot.png.") && name.ends_with(".tmp.png"), "{name}");
    assert_eq!(f.temp_path().parent(), Some(dir.as_path()));
    drop(f);
    assert_eq!(names(&dir), ["old.bin"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_path_written_by_name_is_committed() {
    let (dir, old) = scratch("by-name");
    let f = AtomicFile::create(&old).unwrap();
    std::fs::write(f.temp_path(), b"written by name").unwrap();
    f.commit().unwrap();
    assert_eq!(std::fs::read(&old).unwrap(), b"written by name");
    assert_eq!(names(&dir), ["old.bin"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn directories_missing_directories_and_read_only_files_are_refused() {
    let (dir, old) = scratch("refused");
    let e = write_atomically(&dir, |w| w.write_all(b"x")).unwrap_err();
    assert!(e.to_string().contains("is a directory"), "{e}");
    assert!(write_atomically(&dir.join("no/such/dir/f"), |w| w.write_all(b"x")).is_err());
    let mut perms = std::fs::metadata(&old).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&old, perms).unwrap();
    let e = write_atomically(&old, |w| w.write_all(b"x")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");
    assert!(e.to_string().contains("read-only"), "{e}");
    assert_eq!(std::fs::read(&old).unwrap(), b"the old content");
    assert_eq!(names(&dir), ["old.bin"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn permissions_are_kept_and_links_followed() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, old) = scratch("unix");
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_atomically(&old, |w| w.write_all(b"new")).unwrap();
    assert_eq!(std::fs::metadata(&old).unwrap().permissions().mode() & 0o777, 0o640);
    let link = dir.join("link");
    std::os::unix::fs::symlink("old.bin", &link).unwrap();
    write_atomically(&link, |w| w.write_all(b"through the link")).unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&old).unwrap(), b"through the link");
    assert_eq!(names(&dir), ["link", "old.bin"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
