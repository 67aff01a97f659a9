//! [`redact_url`].

/// `url` without its password (in the user info or a `password=` query
/// parameter), for error messages and logs:
///
/// ```
/// assert_eq!(
///     a2a_store_sql::redact_url("postgres://a2a:secret@db:5432/a2a?sslmode=require"),
///     "postgres://a2a@db:5432/a2a?sslmode=require"
/// );
/// ```
#[must_use]
pub fn redact_url(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(i) => (&url[..i + 3], &url[i + 3..]),
        None => ("", url),
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rfind('@') {
        Some(at) => {
            let (userinfo, host) = authority.split_at(at);
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{user}{host}")
        }
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                    _ => kv.to_owned(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_owned(),
    };
    format!("{scheme}{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_passwords() {
        assert_eq!(
            redact_url("postgres://u:secret@h:5432/db"),
            "postgres://u@h:5432/db"
        );
        assert_eq!(redact_url("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact_url("postgres://h/db"), "postgres://h/db");
        assert_eq!(
            redact_url("postgresql://u:p%40ss@h/db?sslmode=require&password=x"),
            "postgresql://u@h/db?sslmode=require&password=***"
        );
        assert_eq!(
            redact_url("postgres://u:p:q@h?password=y"),
            "postgres://u@h?password=***"
        );
    }
}
