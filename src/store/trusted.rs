//! Whom the daemon's paths may belong to, and how a user is named in a message: `user 65534
//! (nobody)`, the number the kernel gives and the name an administrator knows.

/// The name of user `uid` in /etc/passwd, if it is there.
pub fn user_name(uid: u32) -> Option<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        let name = fields.next()?;
        let id = fields.nth(1)?.parse::<u32>().ok()?;
        (id == uid).then(|| name.to_owned())
    })
}

/// User `uid` as a message names him: `user 65534 (nobody)`, or `user 4242` without a name.
pub fn who(uid: u32) -> String {
    match user_name(uid) {
        Some(name) => format!("user {uid} ({name})"),
        None => format!("user {uid}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_are_named_by_number_and_name() {
        assert_eq!(who(0), "user 0 (root)");
        assert_eq!(who(4_000_000_000), "user 4000000000");
    }
}
