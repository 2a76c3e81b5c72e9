//! A small language of dates in which the Scholar may give the bot, privately, a
//! machine-checkable form of the truth's clause, so that the bot pings by itself
//! (rule 1209 §IV) and refuses a truth that breaks §III: "the Machine shall not
//! fail to go *ping* for any seven consecutive calendar days, nor shall it go
//! *ping* without fail for any fourteen consecutive calendar days".
//!
//! ```text
//! weekday is wednesday or weekday is thursday
//! day is odd and not month is february
//! weekday in monday, friday or day > 27
//! (month in june, july, august) and day is even
//! ```
//!
//! Atoms: `weekday is|in NAMES`, `month is|in NAMES`, `day is|in NUMBERS`,
//! `day is even|odd`, `day < N`, `day > N`, `week is even|odd` (ISO week),
//! `year is even|odd`. Combined with `not`, `and`, `or` (and binds tighter) and
//! parentheses.

use jiff::civil::{Date, Weekday};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    Weekday(Vec<Weekday>),
    Month(Vec<i8>),
    Day(Vec<i8>),
    DayParity(bool),
    DayBelow(i8),
    DayAbove(i8),
    WeekParity(bool),
    YearParity(bool),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DateError {
    #[error("not understood near \"{0}\"")]
    Syntax(String),
    #[error("the form is empty")]
    Empty,
    #[error(
        "the Machine would not go *ping* for {days} days in a row, from {from}: never seven (rule 1209 §III)"
    )]
    SilentTooLong { from: Date, days: u32 },
    #[error(
        "the Machine would go *ping* every day for {days} days in a row, from {from}: never fourteen (rule 1209 §III)"
    )]
    PingsTooLong { from: Date, days: u32 },
}

impl Expr {
    pub fn holds(&self, date: Date) -> bool {
        match self {
            Expr::Or(all) => all.iter().any(|e| e.holds(date)),
            Expr::And(all) => all.iter().all(|e| e.holds(date)),
            Expr::Not(inner) => !inner.holds(date),
            Expr::Weekday(days) => days.contains(&date.weekday()),
            Expr::Month(months) => months.contains(&date.month()),
            Expr::Day(days) => days.contains(&date.day()),
            Expr::DayParity(even) => (date.day() % 2 == 0) == *even,
            Expr::DayBelow(n) => date.day() < *n,
            Expr::DayAbove(n) => date.day() > *n,
            Expr::WeekParity(even) => (date.iso_week_date().week() % 2 == 0) == *even,
            Expr::YearParity(even) => (date.year() % 2 == 0) == *even,
        }
    }
}

/// Reads a form of the language.
pub fn parse(text: &str) -> Result<Expr, DateError> {
    let spaced = text
        .replace('(', " ( ")
        .replace(')', " ) ")
        .replace(',', " , ");
    let tokens: Vec<String> = spaced.split_whitespace().map(str::to_lowercase).collect();
    if tokens.is_empty() {
        return Err(DateError::Empty);
    }
    let mut parser = Parser { tokens, at: 0 };
    let expr = parser.or()?;
    match parser.peek() {
        None => Ok(expr),
        Some(rest) => Err(DateError::Syntax(rest.to_owned())),
    }
}

struct Parser {
    tokens: Vec<String>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn next(&mut self) -> Option<String> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn error(&self) -> DateError {
        DateError::Syntax(
            self.tokens
                .get(self.at.saturating_sub(1)..)
                .map(|rest| rest.join(" "))
                .unwrap_or_default(),
        )
    }

    fn or(&mut self) -> Result<Expr, DateError> {
        let mut all = vec![self.and()?];
        while self.peek() == Some("or") {
            self.at += 1;
            all.push(self.and()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Expr::Or(all)
        })
    }

    fn and(&mut self) -> Result<Expr, DateError> {
        let mut all = vec![self.factor()?];
        while self.peek() == Some("and") {
            self.at += 1;
            all.push(self.factor()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Expr::And(all)
        })
    }

    fn factor(&mut self) -> Result<Expr, DateError> {
        match self.next().as_deref() {
            Some("not") => Ok(Expr::Not(Box::new(self.factor()?))),
            Some("(") => {
                let inner = self.or()?;
                match self.next().as_deref() {
                    Some(")") => Ok(inner),
                    _ => Err(self.error()),
                }
            }
            Some(subject @ ("weekday" | "month" | "day" | "week" | "year")) => {
                let subject = subject.to_owned();
                self.atom(&subject)
            }
            _ => Err(self.error()),
        }
    }

    fn atom(&mut self, subject: &str) -> Result<Expr, DateError> {
        let verb = self.next().ok_or_else(|| self.error())?;
        if subject == "day" && (verb == "<" || verb == ">") {
            let n: i8 = self
                .next()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| self.error())?;
            return Ok(if verb == "<" {
                Expr::DayBelow(n)
            } else {
                Expr::DayAbove(n)
            });
        }
        if verb != "is" && verb != "in" {
            return Err(self.error());
        }
        if let Some(parity @ ("even" | "odd")) = self.peek() {
            let even = parity == "even";
            self.at += 1;
            return match subject {
                "day" => Ok(Expr::DayParity(even)),
                "week" => Ok(Expr::WeekParity(even)),
                "year" => Ok(Expr::YearParity(even)),
                _ => Err(self.error()),
            };
        }
        // A list: values parted by commas (an `or` between names of the same
        // subject stays an `or` of atoms).
        let mut values = vec![self.next().ok_or_else(|| self.error())?];
        while self.peek() == Some(",") {
            self.at += 1;
            values.push(self.next().ok_or_else(|| self.error())?);
        }
        match subject {
            "weekday" => values
                .iter()
                .map(|v| weekday(v))
                .collect::<Option<Vec<_>>>()
                .map(Expr::Weekday),
            "month" => values
                .iter()
                .map(|v| month(v))
                .collect::<Option<Vec<_>>>()
                .map(Expr::Month),
            "day" => values
                .iter()
                .map(|v| v.parse::<i8>().ok().filter(|d| (1..=31).contains(d)))
                .collect::<Option<Vec<_>>>()
                .map(Expr::Day),
            _ => None,
        }
        .ok_or_else(|| self.error())
    }
}

fn weekday(name: &str) -> Option<Weekday> {
    Some(match name {
        "monday" => Weekday::Monday,
        "tuesday" => Weekday::Tuesday,
        "wednesday" => Weekday::Wednesday,
        "thursday" => Weekday::Thursday,
        "friday" => Weekday::Friday,
        "saturday" => Weekday::Saturday,
        "sunday" => Weekday::Sunday,
        _ => return None,
    })
}

fn month(name: &str) -> Option<i8> {
    const NAMES: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    NAMES
        .iter()
        .position(|m| *m == name)
        .and_then(|i| i8::try_from(i + 1).ok())
}

/// §III's bounds over `days` days from `from` (the term has no end the bot can
/// know; `days` is `[ping] horizon_days`): never `silent` days without a ping in
/// a row, never `pinging` days with one in a row.
pub fn check(
    expr: &Expr,
    from: Date,
    days: u32,
    silent: u32,
    pinging: u32,
) -> Result<(), DateError> {
    let (mut quiet, mut loud) = ((0u32, from), (0u32, from));
    let mut date = from;
    for _ in 0..days {
        if expr.holds(date) {
            quiet = (0, date);
            if loud.0 == 0 {
                loud.1 = date;
            }
            loud.0 += 1;
            if loud.0 >= pinging {
                return Err(DateError::PingsTooLong {
                    from: loud.1,
                    days: loud.0,
                });
            }
        } else {
            loud = (0, date);
            if quiet.0 == 0 {
                quiet.1 = date;
            }
            quiet.0 += 1;
            if quiet.0 >= silent {
                return Err(DateError::SilentTooLong {
                    from: quiet.1,
                    days: quiet.0,
                });
            }
        }
        let Ok(next) = date.tomorrow() else { break };
        date = next;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn section_iv_the_rules_example_pings_on_wednesdays_and_thursdays() {
        let form = parse("weekday is wednesday or weekday is thursday").unwrap();
        // 2026-11-25 is a Wednesday.
        assert!(form.holds(date(2026, 11, 25)));
        assert!(form.holds(date(2026, 11, 26)));
        assert!(!form.holds(date(2026, 11, 27)));
        assert!(
            parse("weekday in wednesday, thursday")
                .unwrap()
                .holds(date(2026, 11, 26))
        );
    }

    #[test]
    fn the_date_language_reads_days_months_parities_and_not() {
        let form = parse("(month in june, july) and day is even or not day > 2").unwrap();
        assert!(form.holds(date(2026, 6, 10)));
        assert!(!form.holds(date(2026, 6, 11)));
        assert!(form.holds(date(2026, 3, 2)));
        assert!(!form.holds(date(2026, 3, 3)));
        assert!(parse("week is odd").unwrap().holds(date(2026, 1, 1)));
        assert!(matches!(
            parse("weekday is funday"),
            Err(DateError::Syntax(_))
        ));
        assert!(matches!(parse("day is odd and"), Err(DateError::Syntax(_))));
        assert_eq!(parse("  "), Err(DateError::Empty));
    }

    #[test]
    fn section_iii_never_seven_days_silent_never_fourteen_days_pinging() {
        let start = date(2026, 11, 24);
        let ok = parse("weekday is wednesday or weekday is thursday").unwrap();
        assert_eq!(check(&ok, start, 1461, 7, 14), Ok(()));
        // Only in June: silent from the start for more than seven days.
        let june = parse("month is june").unwrap();
        assert_eq!(
            check(&june, start, 1461, 7, 14),
            Err(DateError::SilentTooLong {
                from: start,
                days: 7
            })
        );
        // Every day but the 31st: fourteen days running.
        let nearly = parse("not day is 31").unwrap();
        assert!(matches!(
            check(&nearly, start, 1461, 7, 14),
            Err(DateError::PingsTooLong { days: 14, .. })
        ));
        // Odd days: pings every other day, but 31 then 1 makes two in a row, fine.
        assert_eq!(
            check(&parse("day is odd").unwrap(), start, 1461, 7, 14),
            Ok(())
        );
    }
}
