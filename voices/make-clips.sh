#!/usr/bin/env bash
# Records the clips of a voice pack with espeak-ng: voices/<PACK>/clips/<stem>.wav for every clip
# the pack needs, 22050 Hz mono 16-bit, leading and trailing silence trimmed.
#
#   voices/make-clips.sh PACK      e.g. voices/make-clips.sh de-fide
#
# The list of clips (stem, language, text, and what espeak-ng is given for the text) comes from
# tactus itself (`tactus voices --clip-list`), so the script and the code never disagree; clips no
# word needs any more are removed. Words espeak-ng reads wrongly ("Cesar" as "Kesar") are given to
# it respelled or as phonemes, from voices/pronounce.toml; tests/clip_phonemes.rs checks the result. Set TACTUS
# to a built binary to skip `cargo run`. Needs espeak-ng and sox (only here: users and CI use the
# committed clips). Clips recorded from a human voice can replace these files one by one.
set -euo pipefail
cd "$(dirname "$0")/.."

pack="${1:?usage: voices/make-clips.sh PACK (de-fide, es-fide, en, ...)}"
for tool in espeak-ng sox; do
    command -v "$tool" >/dev/null || {
        echo "make-clips: $tool is needed (apt-get install espeak-ng sox)" >&2
        exit 2
    }
done
read -r -a tactus <<< "${TACTUS:-cargo run --quiet --}"

list="$("${tactus[@]}" voices --voices-dir voices --clip-list "$pack")"
dir="voices/$pack/clips"
mkdir -p "$dir"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

declare -A wanted=()
while IFS=$'\t' read -r stem lang text spoken; do
    [[ -n "$stem" ]] || continue
    # `spoken` is `text` with voices/pronounce.toml applied; `text` is what the pack writes.
    espeak-ng -v "$lang" -w "$tmp/raw.wav" "${spoken:-$text}"
    # -D: no dither, so the same text always gives the same file (git stores it once).
    # The silence effect runs forwards and backwards: trims the start, then the end.
    sox -D "$tmp/raw.wav" -r 22050 -c 1 -b 16 -e signed-integer "$tmp/clip.wav" \
        silence 1 0.01 0.5% reverse silence 1 0.01 0.5% reverse
    mv "$tmp/clip.wav" "$dir/$stem.wav"
    wanted["$stem"]=1
done <<< "$list"

for file in "$dir"/*.wav; do
    stem="$(basename "$file" .wav)"
    [[ -n "${wanted[$stem]:-}" ]] || rm -v -- "$file"
done
echo "$pack: ${#wanted[@]} clips in $dir, $(du -sh --apparent-size "$dir" | cut -f1)"
