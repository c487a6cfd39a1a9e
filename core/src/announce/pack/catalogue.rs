//! The catalogue: every template and every word the renderer itself uses, with the slots each
//! template may fill. The parser checks a pack against it, which is what makes rendering total;
//! the renderer ([`crate::announce::voice`]) fills the same templates by these names.

use shakmaty::{Color, Role};

use super::FileNames;

pub(in crate::announce) const PIECE_SLOTS: [&str; 3] = ["piece", "colored", "a_piece"];
const COUNT_SLOTS: &[&str] = &["n", "n_m", "n_f"];

pub(in crate::announce) struct TemplateSpec {
    pub(in crate::announce) name: &'static str,
    pub(in crate::announce) slots: &'static [&'static str],
    pub(in crate::announce) required: bool,
}

const fn t(name: &'static str, slots: &'static [&'static str]) -> TemplateSpec {
    TemplateSpec {
        name,
        slots,
        required: true,
    }
}

pub(in crate::announce) const TEMPLATES: &[TemplateSpec] = &[
    t("move", &["piece", "origin", "to"]),
    t("capture", &["piece", "origin", "to"]),
    t("capture_named", &["piece", "origin", "to", "captured"]),
    t("en_passant", &["piece", "origin", "to"]),
    t("castle_short", &[]),
    t("castle_long", &[]),
    t("promotion", &["move", "promoted"]),
    t("check", &["move"]),
    t("mate", &["move"]),
    t("stalemate", &[]),
    t("dead_position", &[]),
    t("draw_offered", &["side"]),
    t("draw_accepted", &[]),
    t("draw_declined", &["side"]),
    t("claim_made", &["side", "reason"]),
    t("claim_upheld", &["reason"]),
    t("claim_rejected", &["reason"]),
    t("flag_fell", &["side"]),
    t("result_white", &[]),
    t("result_black", &[]),
    t("result_draw", &[]),
    t("touched", &["piece", "colored", "a_piece", "square"]),
    t("illegal_move", &[]),
    t(
        "guidance_misplaced",
        &["piece", "colored", "a_piece", "square", "target"],
    ),
    t(
        "guidance_missing",
        &["piece", "colored", "a_piece", "square"],
    ),
    t("guidance_extra", &["piece", "colored", "a_piece", "square"]),
    t("guidance_extra_unknown", &["square"]),
    t("guidance_more_one", COUNT_SLOTS),
    t("guidance_more", COUNT_SLOTS),
    t(
        "guidance_wrong",
        &[
            "square",
            "found",
            "found_colored",
            "a_found",
            "belongs",
            "belongs_colored",
            "a_belongs",
        ],
    ),
    t("moves_one", COUNT_SLOTS),
    t("moves", COUNT_SLOTS),
    t("hours_one", COUNT_SLOTS),
    t("hours", COUNT_SLOTS),
    t("minutes_one", COUNT_SLOTS),
    t("minutes", COUNT_SLOTS),
    t("seconds_one", COUNT_SLOTS),
    t("seconds", COUNT_SLOTS),
    TemplateSpec {
        name: "duration_join",
        slots: &[],
        required: false,
    },
    t("moves_completed", &["white", "black"]),
    t(
        "times",
        &["white_used", "white_left", "black_used", "black_left"],
    ),
    t(
        "square_contents",
        &["square", "piece", "colored", "a_piece"],
    ),
    t("square_empty", &["square"]),
    t("line_item", &["square", "piece", "colored", "a_piece"]),
    t("line_empty", &[]),
    t(
        "pieces_of_kind",
        &["piece", "colored", "side", "squares", "count"],
    ),
    t("pieces_of_kind_none", &["piece", "colored", "side"]),
    t("material", &["white", "black"]),
    t("to_move", &["side"]),
    t("board_disconnected", &["board"]),
    t("board_reconnected", &["board"]),
    t("game_recovered", &[]),
    t("game_started", &["side"]),
    t("clocks_paused", &[]),
    t("clocks_resumed", &[]),
    t("adjourned", &["side"]),
    t("retraced", &["side"]),
    t("no_move_yet", &[]),
    t("no_clock", &[]),
    t("envelope_opened", &[]),
    t("sealed_move_invalid", &[]),
    t("speech_fallback", &[]),
    t("move_held", &[]),
    t("move_required", &["move"]),
    t("no_move_to_count", &[]),
    t("own_move", &["move"]),
    t("clock_changed", &["side"]),
    t("clock_added", &["side", "time"]),
    t("clock_taken", &["side", "time"]),
    t("out_of_turn", &[]),
    t("hint", &["move"]),
    t("standing_equal", &[]),
    t("standing_slightly", &["side"]),
    t("standing_clearly", &["side"]),
    t("standing_winning", &["side"]),
    t("standing_mate", &["side", "n"]),
    t("opponent_away", &[]),
    t("opponent_back", &[]),
    t("training_only", &[]),
    t("resign_asked", &[]),
    t("review_lost_material", &["n", "played", "better"]),
    t("review_missed_mate", &["n", "played", "better"]),
    t("review_end", &[]),
    t("request_switched_off", &[]),
    t("recording_halted", &[]),
    t("recording_restored", &[]),
    t("refused_unknown", &[]),
    t("refused_not_allowed", &[]),
    t("refused_bad_entry", &[]),
    t("refused_not_now", &[]),
    t("refused_too_fast", &[]),
    t("button_unassigned", COUNT_SLOTS),
];

pub(in crate::announce) const ROLES: [Role; 6] = [
    Role::King,
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];
const FILE_LETTERS: [char; 8] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

pub(in crate::announce) fn role_key(role: Role) -> &'static str {
    match role {
        Role::King => "king",
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
    }
}

pub(in crate::announce) fn color_key(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The words the renderer uses by name (beyond those in templates and the numbers), with what
/// needs each: the "needed by" of a missing-word error.
pub(super) fn code_words() -> Vec<(String, &'static str)> {
    let mut words = Vec::new();
    for letter in FILE_LETTERS {
        words.push((format!("file_{letter}"), "every square (the file names)"));
    }
    for rank in 1..=8 {
        words.push((format!("rank_{rank}"), "every square (the rank names)"));
    }
    for role in ROLES {
        words.push((
            role_key(role).to_owned(),
            "moves and pieces (the piece names)",
        ));
        for color in [Color::White, Color::Black] {
            let (c, r) = (color_key(color), role_key(role));
            words.push((
                format!("{c}_{r}"),
                "the {colored} slot (a piece with its colour)",
            ));
            words.push((
                format!("a_{c}_{r}"),
                "the {a_piece} slot (\"a white pawn\")",
            ));
        }
    }
    words.push(("side_white".to_owned(), "the {side} slot"));
    words.push(("side_black".to_owned(), "the {side} slot"));
    words.push(("board_tactile".to_owned(), "the {board} slot"));
    words.push(("board_sighted".to_owned(), "the {board} slot"));
    words.push((
        "reason_repetition".to_owned(),
        "claims under 9.2 ({reason})",
    ));
    words.push((
        "reason_fifty_moves".to_owned(),
        "claims under 9.3 ({reason})",
    ));
    words
}

/// The optional file-name sets: all eight words or none.
pub(super) fn optional_file_words(files: FileNames) -> Vec<String> {
    FILE_LETTERS
        .iter()
        .map(|l| format!("{}{l}", files.prefix()))
        .collect()
}
