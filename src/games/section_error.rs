//! The words of a refusal of bot.toml: a game's section that its game
//! refuses, told by the key at fault, and the reader's message without Rust
//! type names. Pure: the shell's config reader uses them as well.

/// A game's section that its game refuses (`[vote] days = "three"`): the key
/// at fault is the one whose removal changes the refusal, since the reader of a
/// section read as a value keeps no position.
pub fn section_error<T: serde::de::DeserializeOwned>(
    name: &str,
    section: &toml::Value,
    error: &toml::de::Error,
) -> String {
    let refusal = error.message().to_owned();
    let refused_without = |path: &[String]| -> bool {
        let mut trial = section.clone();
        remove_at(&mut trial, path);
        match trial.try_into::<T>() {
            Ok(_) => false,
            Err(other) => other.message() == refusal,
        }
    };
    let mut path: Vec<String> = Vec::new();
    while let Some(toml::Value::Table(table)) = value_at(section, &path) {
        let culprit = table.keys().find(|key| {
            let mut trial = path.clone();
            trial.push((*key).clone());
            !refused_without(&trial)
        });
        match culprit {
            Some(key) => path.push(key.clone()),
            None => break,
        }
    }
    let message = plain(&refusal);
    match path.split_last() {
        None => format!("[{name}]: {message}"),
        Some((key, tables)) => {
            let header = std::iter::once(name.to_owned())
                .chain(tables.iter().cloned())
                .collect::<Vec<_>>()
                .join(".");
            match value_at(section, &path) {
                Some(value) if !refusal.starts_with("unknown field") => {
                    format!("[{header}] {key} = {value}: {message}")
                }
                _ => format!("[{header}] {key}: {message}"),
            }
        }
    }
}

fn value_at<'v>(value: &'v toml::Value, path: &[String]) -> Option<&'v toml::Value> {
    path.iter()
        .try_fold(value, |value, key| value.as_table()?.get(key))
}

fn remove_at(value: &mut toml::Value, path: &[String]) {
    let Some((last, tables)) = path.split_last() else {
        return;
    };
    let mut value = value;
    for key in tables {
        match value.as_table_mut().and_then(|table| table.get_mut(key)) {
            Some(inner) => value = inner,
            None => return,
        }
    }
    if let Some(table) = value.as_table_mut() {
        table.remove(last);
    }
}

/// The reader's refusal in an operator's words: no Rust type names.
pub fn plain(message: &str) -> String {
    let message = message.trim();
    let ticked = |text: &str| text.trim().trim_matches('`').to_owned();
    let one_of = |list: &str| {
        list.trim_start_matches("one of ")
            .split(", ")
            .flat_map(|item| item.split(" or "))
            .map(&ticked)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(rest) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
    {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        let (words, numeric) = expectation(expected.trim());
        let hint = if found.starts_with("string") && numeric {
            " (write it without quotes)"
        } else if !found.starts_with("string") && words == "text in quotes" {
            " (write it in quotes)"
        } else {
            ""
        };
        return format!("expected {words}{hint}");
    }
    if let Some(field) = message.strip_prefix("missing field ") {
        return format!("the key {} is missing: add it", ticked(field));
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let (field, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        return format!(
            "no key {} here (a misspelling?); the keys here: {}",
            ticked(field),
            one_of(expected)
        );
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        let (value, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        return format!(
            "{} is not one of the choices: {}",
            ticked(value),
            one_of(expected)
        );
    }
    if message == "wanted string or table" {
        return "expected one of the choices, in quotes".to_owned();
    }
    message.to_owned()
}

/// What a Rust type the reader expected is, in words; and whether it is a number.
fn expectation(expected: &str) -> (String, bool) {
    match expected {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => ("a whole number".into(), true),
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => {
            ("a whole number, 0 or more".into(), true)
        }
        "f32" | "f64" => ("a number".into(), true),
        "a boolean" => ("true or false".into(), true),
        "a string" => ("text in quotes".into(), false),
        "a sequence" => ("a list in brackets, [...]".into(), false),
        "a map" => ("a table (a [section] or { key = value })".into(), false),
        other => (other.to_owned(), false),
    }
}
