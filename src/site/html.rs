//! A game's public view as HTML, for any game: nested JSON becomes nested
//! definition lists, and a list of records with the same plain fields becomes a
//! table. The site names no game, so this is how a game's state is shown
//! until the game has pictures of its own. Every string is escaped here.

use serde_json::Value;

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A view as HTML; nothing for an empty one.
pub fn view(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out, 0);
    out
}

/// Deep enough for any game's state; deeper is shown as its JSON text.
const MAX_DEPTH: usize = 8;

fn write(value: &Value, out: &mut String, depth: usize) {
    if depth > MAX_DEPTH {
        out.push_str(&format!("<code>{}</code>", escape(&value.to_string())));
        return;
    }
    match value {
        Value::Null => out.push_str("<span class=\"none\">none</span>"),
        Value::Bool(true) => out.push_str("yes"),
        Value::Bool(false) => out.push_str("no"),
        Value::Number(number) => out.push_str(&number.to_string()),
        Value::String(text) if text.contains('\n') => {
            out.push_str(&format!("<pre>{}</pre>", escape(text)));
        }
        Value::String(text) => out.push_str(&escape(text)),
        Value::Array(items) if items.is_empty() => out.push_str("<span class=\"none\">none</span>"),
        Value::Array(items) => match table_columns(items) {
            Some(columns) => {
                out.push_str("<div class=\"scroll\"><table><thead><tr>");
                for column in &columns {
                    out.push_str(&format!("<th>{}</th>", escape(&words(column))));
                }
                out.push_str("</tr></thead><tbody>");
                for item in items {
                    out.push_str("<tr>");
                    for column in &columns {
                        out.push_str("<td>");
                        write(&item[column.as_str()], out, depth + 1);
                        out.push_str("</td>");
                    }
                    out.push_str("</tr>");
                }
                out.push_str("</tbody></table></div>");
            }
            None => {
                out.push_str("<ol>");
                for item in items {
                    out.push_str("<li>");
                    write(item, out, depth + 1);
                    out.push_str("</li>");
                }
                out.push_str("</ol>");
            }
        },
        Value::Object(fields) if fields.is_empty() => {
            out.push_str("<span class=\"none\">none</span>")
        }
        Value::Object(fields) => {
            out.push_str("<dl>");
            for (key, field) in fields {
                out.push_str(&format!("<dt>{}</dt><dd>", escape(&words(key))));
                write(field, out, depth + 1);
                out.push_str("</dd>");
            }
            out.push_str("</dl>");
        }
    }
}

/// The columns of a list of records whose fields are all plain (no lists or
/// records inside, but a player's `{"player": 3}`), or `None`.
fn table_columns(items: &[Value]) -> Option<Vec<String>> {
    let mut columns: Vec<String> = Vec::new();
    for item in items {
        let fields = item.as_object()?;
        for (key, field) in fields {
            let plain = match field {
                Value::Array(_) => false,
                Value::Object(inner) => inner.len() == 1 && inner.values().all(is_scalar),
                _ => true,
            };
            if !plain {
                return None;
            }
            if !columns.contains(key) {
                columns.push(key.clone());
            }
        }
    }
    (!columns.is_empty() && columns.len() <= 10).then_some(columns)
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

/// A field's name as words: `last_mover` → `last mover`.
fn words(key: &str) -> String {
    key.replace('_', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_of_plain_records_is_a_table_and_text_is_escaped() {
        let html = view(&json!({"players": [{"name": "<b>Al</b>", "points": 3}]}));
        assert!(html.contains("<table>"));
        assert!(html.contains("&lt;b&gt;Al&lt;/b&gt;"));
        assert!(!html.contains("<b>"));
    }
}
