//! The OS user a managed server runs as.
//!
//! Run by root, abtest does not hand a throwaway server root's powers: a server that runs
//! as root can be told (by a hook, a profile option, a `DATA DIRECTORY`) to write any file
//! on the host. It runs as `mysql`, the user Debian's mariadb-server package creates for
//! the real server, and owns only its private directory. abtest drops to that user
//! between fork and exec, so no instruction of mariadbd's runs as root (and the
//! parent-death signal, which the kernel clears when the user changes, is set after the
//! change). Without a `mysql` user abtest refuses rather than falling back to `nobody`:
//! `nobody` is shared by other services, and whatever runs as it could read the
//! server's data and keys. Run by anyone else, the server runs as that user, as before.

use std::ffi::{CStr, CString};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use anyhow::Context;

/// The user a managed server runs as when abtest runs as root.
pub(crate) const SERVER_USER: &str = "mysql";

/// An unprivileged OS user a managed server is switched to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServerUser {
    /// Its name, for messages.
    pub(crate) name: String,
    /// Its user id.
    pub(crate) uid: libc::uid_t,
    /// Its primary group.
    pub(crate) gid: libc::gid_t,
}

impl ServerUser {
    /// The user a managed server started now must run as: `mysql` when abtest runs as
    /// root, none (the invoking user, nothing to change) otherwise.
    pub(crate) fn for_managed_server() -> anyhow::Result<Option<ServerUser>> {
        if !super::process::is_root() {
            return Ok(None);
        }
        match look_up(SERVER_USER) {
            Some(user) if user.uid != 0 => Ok(Some(user)),
            Some(_) => Err(crate::exit::UsageError::err(format!(
                "the OS user `{SERVER_USER}` has user id 0, so a managed server would run as \
                 root; give `{SERVER_USER}` its own unprivileged id, or run abtest as an \
                 ordinary user"
            ))),
            None => Err(crate::exit::UsageError::err(format!(
                "abtest runs as root, and a managed server must not: it runs as the OS user \
                 `{SERVER_USER}`, which does not exist here. Create it (`useradd --system \
                 --no-create-home {SERVER_USER}`, or install mariadb-server, which does), or \
                 run abtest as an ordinary user"
            ))),
        }
    }

    /// Hands `path` and everything below it to this user (symbolic links themselves,
    /// never what they point at).
    pub(crate) fn own_tree(&self, path: &Path) -> anyhow::Result<()> {
        std::os::unix::fs::lchown(path, Some(self.uid), Some(self.gid))
            .with_context(|| format!("giving {} to `{}`", path.display(), self.name))?;
        if std::fs::symlink_metadata(path)?.is_dir() {
            for entry in std::fs::read_dir(path)? {
                self.own_tree(&entry?.path())?;
            }
        }
        Ok(())
    }

    /// Refuses a directory this user cannot reach: every directory above it must let
    /// the user pass (`x` for it as owner, group or other), or the server could not
    /// open its own files.
    pub(crate) fn check_reaches(&self, dir: &Path) -> anyhow::Result<()> {
        for ancestor in dir.ancestors() {
            let meta = std::fs::metadata(ancestor)
                .with_context(|| format!("reading {}", ancestor.display()))?;
            let mode = meta.mode();
            let passes = if meta.uid() == self.uid {
                mode & 0o100 != 0
            } else if meta.gid() == self.gid {
                mode & 0o010 != 0
            } else {
                mode & 0o001 != 0
            };
            if !passes {
                return Err(crate::exit::UsageError::err(format!(
                    "a managed server runs as the OS user `{}`, which cannot enter {} (mode \
                     {:o}), on the way to its directory in {}; point TMPDIR at a directory \
                     `{}` can reach (/tmp is), or make {} searchable (chmod o+x)",
                    self.name,
                    ancestor.display(),
                    mode & 0o7777,
                    dir.display(),
                    self.name,
                    ancestor.display()
                )));
            }
        }
        Ok(())
    }

    /// Switches the calling process to this user: supplementary groups, group, user, in
    /// that order (each one needs the privilege the next one gives up).
    ///
    /// Only async-signal-safe calls, so it may run between fork and exec.
    pub(crate) fn switch_to(&self) -> std::io::Result<()> {
        // SAFETY: plain system calls with values, no memory is touched but `gid`.
        unsafe {
            if libc::setgroups(1, &self.gid) != 0
                || libc::setgid(self.gid) != 0
                || libc::setuid(self.uid) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

/// The user named `name`, if it exists.
fn look_up(name: &str) -> Option<ServerUser> {
    let c_name = CString::new(name).ok()?;
    let mut buffer = vec![0 as libc::c_char; 4096];
    // SAFETY: all-zero is a valid `passwd` (null pointers, zero ids).
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: getpwnam_r writes only into `entry` and `buffer`, whose sizes it is given;
    // `pw_name` points into `buffer`, which outlives its use here.
    unsafe {
        let status = libc::getpwnam_r(
            c_name.as_ptr(),
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        );
        if status != 0 || found.is_null() || entry.pw_name.is_null() {
            return None;
        }
        Some(ServerUser {
            name: CStr::from_ptr(entry.pw_name).to_string_lossy().into_owned(),
            uid: entry.pw_uid,
            gid: entry.pw_gid,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_that_does_not_exist_is_not_found_and_root_is() {
        assert_eq!(look_up("abtest-no-such-user"), None);
        assert_eq!(look_up("root").map(|u| u.uid), Some(0));
    }

    #[test]
    fn a_directory_closed_to_the_user_is_named() {
        let user = ServerUser {
            name: "someone".into(),
            uid: 4_000_000,
            gid: 4_000_000,
        };
        let closed = tempfile::tempdir().unwrap();
        let inner = closed.path().join("inner");
        std::fs::create_dir(&inner).unwrap();
        std::fs::set_permissions(
            closed.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        let error = user.check_reaches(&inner).unwrap_err().to_string();
        assert!(
            error.contains(&closed.path().display().to_string()) && error.contains("700"),
            "{error}"
        );
        std::fs::set_permissions(
            closed.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o711),
        )
        .unwrap();
        user.check_reaches(&inner).unwrap();
    }
}
