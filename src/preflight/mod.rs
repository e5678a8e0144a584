//! Checks before anything runs, so a mistake costs seconds instead of the minutes a
//! run spends installing servers and loading data: the data set against the disk and
//! the buffer pool (`data_size`, cheap enough for every run and dry run), and, for
//! `abtest check`, what only a connection can tell about an external server
//! (`external`: the login, the grants, the connection limits, the database, its disk).

pub(crate) mod data_size;
pub(crate) mod external;

/// Free bytes for an unprivileged user on the filesystem holding `path`; `None` when
/// the path cannot be asked (it does not exist here, or it is not readable).
pub(crate) fn free_bytes(path: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs with a NUL-terminated path and a zeroed struct it fills in.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    // Both are u64 on 64-bit Linux, narrower on 32-bit targets.
    #[allow(clippy::useless_conversion)]
    let (blocks, size) = (u64::from(stat.f_bavail), u64::from(stat.f_frsize));
    Some(blocks.saturating_mul(size))
}

/// A byte count as a DBA reads it: `1.2 GiB`, `512 MiB`.
pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn byte_counts_read_as_a_dba_writes_them() {
        assert_eq!(super::bytes(512), "512 B");
        assert_eq!(super::bytes(134_217_728), "128 MiB");
        assert_eq!(super::bytes(2_480_000_000), "2.3 GiB");
    }

    #[test]
    fn the_free_space_of_an_existing_directory_is_known() {
        assert!(super::free_bytes(&std::env::temp_dir()).is_some());
        assert_eq!(
            super::free_bytes(std::path::Path::new("/nonexistent/x")),
            None
        );
    }
}
