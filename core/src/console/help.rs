//! What the consoles are shown of the commands: `help` for a role ([`help_lines`]), the blind
//! player's own commands in his words ([`player_help`], only what he may do at his table). How a
//! refusal is told to him is the table's (`table::keypad`).

use super::{Command, error::needs_words, parse};
use crate::commands::{self, COMMANDS, Role, Spec, Words};

/// Whether a command is a training game's (refused in a game against a person).
pub fn is_training(spec: &Spec) -> bool {
    matches!(parse(spec.example, Role::Player), Ok(Command::Training(_)))
}

/// The blind player's own commands at his table ([`commands::is_his`]), in the order of
/// [`COMMANDS`]; the training ones only in a training game.
pub fn his_commands(training: bool) -> impl Iterator<Item = &'static Spec> {
    COMMANDS
        .iter()
        .filter(move |s| commands::is_his(s) && (training || !is_training(s)))
}

/// The blind player's `help`, in his words: one line per command he may use at this table
/// (`zug (letzter): der letzte Zug`), or, with a topic, that command's line. Not the staff's
/// setup of his keypad, nor the training commands in a game against a person: what he is
/// shown, he may do.
pub fn player_help(words: &Words, training: bool, topic: Option<&Spec>) -> Vec<String> {
    let line = |spec: &Spec| {
        let others = match words.local(spec) {
            Some(local) if !local.words.is_empty() => local.words[1..].join(", "),
            _ => spec.alias.to_string(),
        };
        if others.is_empty() {
            format!("{}: {}", words.usage(spec), words.what(spec))
        } else {
            format!("{} ({others}): {}", words.usage(spec), words.what(spec))
        }
    };
    match topic {
        Some(spec) => vec![line(spec)],
        None => his_commands(training).map(line).collect(),
    }
}

/// The `help` text for a role: one line per command it may use (`name (alias) ARGS: what`), or
/// the usage and an example of one command.
pub fn help_lines(role: Role, topic: Option<&str>) -> Vec<String> {
    if let Some(spec) = topic.and_then(commands::lookup) {
        let mut lines = vec![
            format!("{} (alias {}): {}", spec.usage(), spec.alias, spec.what),
            format!("example: {}", spec.example),
        ];
        if spec.role > role {
            lines.push(format!(
                "this console is in the {role} role; '{}' is {}",
                spec.name,
                needs_words(spec.role)
            ));
        }
        return lines;
    }
    let mut lines = vec![format!(
        "commands for the {role} role (help COMMAND shows one; SIDE is white, black, blind or sighted):"
    )];
    lines.extend(
        COMMANDS
            .iter()
            .filter(|s| s.role <= role)
            .map(|s| format!("{} ({}): {}", s.usage(), s.alias, s.what)),
    );
    lines
}
