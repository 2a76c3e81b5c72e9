//! The ping notice of rule 1209 §IV, word for word: "Today is Someday, the xth day
//! of Month, in the Year of Our Lord YYYY, and the Machine That Goes *ping* Has
//! Gone *ping* today. Since I have been scholar, the Machine has gone *ping* n
//! times." Someday, xth, Month and YYYY are the date of the ping in the Acka day's
//! zone; n the pings of the current Scholar's term. A notice posted after the day
//! of its ping is "prefaced by an apology from the Scholar for his tardiness".

use jiff::civil::{Date, Weekday};

/// An English ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 23rd.
pub fn ordinal(n: i64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn weekday_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Monday => "Monday",
        Weekday::Tuesday => "Tuesday",
        Weekday::Wednesday => "Wednesday",
        Weekday::Thursday => "Thursday",
        Weekday::Friday => "Friday",
        Weekday::Saturday => "Saturday",
        Weekday::Sunday => "Sunday",
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The notice of a ping on `date`, the `n`th of the term.
pub fn notice(date: Date, n: u32) -> String {
    format!(
        "Today is {}, the {} day of {}, in the Year of Our Lord {}, and the Machine That Goes \
         *ping* Has Gone *ping* today. Since I have been scholar, the Machine has gone *ping* \
         {n} times.",
        weekday_name(date.weekday()),
        ordinal(i64::from(date.day())),
        MONTHS[usize::from(date.month().unsigned_abs()) - 1],
        date.year(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ordinal computed another way: by the last word of the number in English.
    fn spelled_suffix(n: i64) -> &'static str {
        let teens = ["eleven", "twelve", "thirteen"];
        let last = n % 10;
        let tens = n % 100 / 10;
        if tens == 1 {
            let _ = teens;
            "th"
        } else {
            ["th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"][last as usize]
        }
    }

    #[test]
    fn section_iv_ordinals_are_english() {
        let expected = [
            (1, "1st"),
            (2, "2nd"),
            (3, "3rd"),
            (4, "4th"),
            (11, "11th"),
            (12, "12th"),
            (13, "13th"),
            (21, "21st"),
            (22, "22nd"),
            (23, "23rd"),
            (31, "31st"),
            (101, "101st"),
            (111, "111th"),
            (112, "112th"),
        ];
        for (n, text) in expected {
            assert_eq!(ordinal(n), text);
        }
    }

    #[test]
    fn section_iv_the_notice_for_every_day_of_a_leap_year_and_the_next() {
        // An independent weekday: days since 2000-01-01 (a Saturday), mod 7.
        let names = [
            "Saturday",
            "Sunday",
            "Monday",
            "Tuesday",
            "Wednesday",
            "Thursday",
            "Friday",
        ];
        let epoch = jiff::civil::date(2000, 1, 1);
        let mut date = jiff::civil::date(2028, 1, 1);
        let mut count = 0;
        while date.year() < 2030 {
            let days = (date - epoch).get_days();
            let weekday = names[days.rem_euclid(7) as usize];
            let day = i64::from(date.day());
            let month = MONTHS[usize::from(date.month().unsigned_abs()) - 1];
            let expected = format!(
                "Today is {weekday}, the {day}{} day of {month}, in the Year of Our Lord {}, and the Machine That Goes *ping* Has Gone *ping* today. Since I have been scholar, the Machine has gone *ping* 7 times.",
                spelled_suffix(day),
                date.year()
            );
            assert_eq!(notice(date, 7), expected);
            count += 1;
            date = date.tomorrow().expect("tomorrow");
        }
        assert_eq!(count, 366 + 365);
    }

    #[test]
    fn section_iv_the_rules_own_words() {
        assert_eq!(
            notice(jiff::civil::date(2026, 11, 24), 1),
            "Today is Tuesday, the 24th day of November, in the Year of Our Lord 2026, and the Machine That Goes *ping* Has Gone *ping* today. Since I have been scholar, the Machine has gone *ping* 1 times."
        );
    }
}
