//! Real audio without a sound card: the clip speaker plays through ALSA and the tts speaker speaks
//! through speech-dispatcher, both into an ALSA file device, and the captured samples are checked
//! for real sound (energy and a plausible duration) along with the "finished" report. Without any
//! output (ALSA's default on a card that does not exist) speech is off with one message and none
//! of ALSA's own lines, and a card that appears later is used from the next announcement.
//!
//! Each test runs `tactus speak-test` (hidden) as a subprocess in its own temporary folder, with
//! `ALSA_CONFIG_PATH`, `XDG_CONFIG_HOME` and `XDG_RUNTIME_DIR` set for that process only: ALSA
//! and speech-dispatcher read them process-wide, and the speech-dispatcher the child starts gets
//! its own socket there, so tests run in parallel and a stale daemon from an earlier run is never
//! reused. Everything runs under a timeout, and each test ends the daemon it started (by the pid
//! in its own runtime folder): a speech-dispatcher without audio output ignores SIGTERM.
//!
//! Needs `espeak-ng`, `speech-dispatcher` and `speech-dispatcher-espeak-ng` (scripts/setup).
//!
//! The latency benchmark for BENCHMARKS.md is the ignored test at the end:
//! `cargo test --release --test audio -- --ignored --nocapture speech_latency`.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use tactus::speech::pcm;

/// The capture device's format: what `pcm::s16le_samples` reads back.
const CAPTURE_RATE: u32 = 22_050;
/// A sample louder than this counts as sound (espeak-ng speech peaks near 20,000).
const LOUD: i16 = 300;
/// Speech RMS over its voiced stretch is in the thousands; silence and dither stay far below.
const MIN_SPEECH_RMS: f64 = 500.0;
/// No single speak-test may take longer (speech-dispatcher start-up ~0.3 s, voice listing ~3 s,
/// an utterance deadline ~9 s when the engine has no output).
const CHILD_TIMEOUT: Duration = Duration::from_secs(60);

/// The clips of "Dame Hector fünf Schach" under the stems a voice pack uses (speak-test's
/// default utterance).
const WORDS: [(&str, &str); 4] = [
    ("queen", "Dame"),
    ("file_h", "Hector"),
    ("rank_5", "fünf"),
    ("check", "Schach"),
];

/// Where ALSA's default output goes.
#[derive(Clone, Copy)]
enum Sink {
    /// A raw capture file (`capture.raw`) of this many channels.
    Capture(u16),
    /// Discarded (the null PCM): no file I/O in the path, for timing.
    Null,
}

/// One test's private audio world.
struct AudioEnv {
    dir: PathBuf,
    channels: u16,
}

impl AudioEnv {
    /// `speechd_output`: give speech-dispatcher an ALSA output (else it has the stock, pulse-only
    /// configuration and no pulse server: utterances never finish).
    fn new(name: &str, speechd_output: bool, sink: Sink) -> AudioEnv {
        let dir = crate::support::table::temp_dir(&format!("audio-{name}"));
        fs::create_dir_all(dir.join("clips")).unwrap();
        fs::create_dir_all(dir.join("xdg/speech-dispatcher")).unwrap();
        fs::create_dir_all(dir.join("run")).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // speech-dispatcher refuses a runtime folder others can read.
            fs::set_permissions(dir.join("run"), fs::Permissions::from_mode(0o700)).unwrap();
        }
        // The include line matters: ALSA_CONFIG_PATH replaces the whole top-level configuration.
        let (alsa, channels) = match sink {
            Sink::Capture(channels) => (
                format!(
                    "</usr/share/alsa/alsa.conf>\n\
                     pcm.!default {{\n    type plug\n    slave {{ pcm \"capture\"; format S16_LE; rate {CAPTURE_RATE}; channels {channels} }}\n}}\n\
                     pcm.capture {{\n    type file\n    slave.pcm \"null\"\n    file \"{}\"\n    format \"raw\"\n}}\n",
                    dir.join("capture.raw").display()
                ),
                channels,
            ),
            Sink::Null => (
                "</usr/share/alsa/alsa.conf>\npcm.!default {\n    type null\n}\n".to_string(),
                1,
            ),
        };
        fs::write(dir.join("alsa.conf"), alsa).unwrap();
        let stock = fs::read_to_string("/etc/speech-dispatcher/speechd.conf").expect(
            "speech-dispatcher is not installed (/etc/speech-dispatcher/speechd.conf): run scripts/setup",
        );
        let conf = if speechd_output {
            // ALSA only, not "pulse,alsa": a pulse server on the machine would take the speech
            // away from the capture device.
            format!("{stock}\nAudioOutputMethod \"alsa\"\n")
        } else {
            stock
        };
        fs::write(dir.join("xdg/speech-dispatcher/speechd.conf"), conf).unwrap();
        for (stem, word) in WORDS {
            let status = Command::new("espeak-ng")
                .args(["-v", "de", "-w"])
                .arg(dir.join("clips").join(format!("{stem}.wav")))
                .arg(word)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("espeak-ng is not installed: run scripts/setup");
            assert!(status.success(), "espeak-ng failed for {word}");
        }
        AudioEnv { dir, channels }
    }

    fn clips_dir(&self) -> PathBuf {
        self.dir.join("clips")
    }

    /// The samples of all clips of WORDS plus the gaps between them, as the clip speaker plays.
    fn clip_utterance_len(&self) -> usize {
        let clips: usize = WORDS
            .iter()
            .map(|(stem, _)| {
                hound::WavReader::open(self.clips_dir().join(format!("{stem}.wav")))
                    .unwrap()
                    .duration() as usize
            })
            .sum();
        clips + 3 * pcm::frames_for(Duration::from_millis(120), pcm::CLIP_RATE)
    }

    /// Runs `tactus speak-test ARGS` in this world; returns (success, stdout, stderr).
    fn speak_test(&self, args: &[&str]) -> (bool, String, String) {
        let child = self.spawn_speak_test(args);
        self.finish(child, args)
    }

    fn stdout_path(&self) -> PathBuf {
        self.dir.join("stdout.txt")
    }

    /// Starts `tactus speak-test ARGS` in this world.
    fn spawn_speak_test(&self, args: &[&str]) -> std::process::Child {
        let out = self.stdout_path();
        let err = self.dir.join("stderr.txt");
        Command::new(env!("CARGO_BIN_EXE_tactus"))
            .arg("speak-test")
            .arg("--clips-dir")
            .arg(self.clips_dir())
            .args(args)
            .env("ALSA_CONFIG_PATH", self.dir.join("alsa.conf"))
            .env("XDG_CONFIG_HOME", self.dir.join("xdg"))
            .env("XDG_RUNTIME_DIR", self.dir.join("run"))
            .env_remove("SPEECHD_ADDRESS")
            .env("RUST_LOG", "info")
            // Files, not pipes: the speech-dispatcher the child starts may keep inherited
            // descriptors open long after the child has exited.
            .stdout(fs::File::create(&out).unwrap())
            .stderr(fs::File::create(&err).unwrap())
            .stdin(Stdio::null())
            .spawn()
            .expect("cannot run tactus")
    }

    /// Waits for a speak-test (killed past [`CHILD_TIMEOUT`]); returns (success, stdout, stderr).
    fn finish(&self, mut child: std::process::Child, args: &[&str]) -> (bool, String, String) {
        let out = self.stdout_path();
        let err = self.dir.join("stderr.txt");
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > CHILD_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "tactus speak-test {args:?} did not end within {CHILD_TIMEOUT:?}\nstdout:\n{}\nstderr:\n{}",
                    fs::read_to_string(&out).unwrap_or_default(),
                    fs::read_to_string(&err).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        (
            status.success(),
            fs::read_to_string(&out).unwrap_or_default(),
            fs::read_to_string(&err).unwrap_or_default(),
        )
    }

    /// The captured samples of one channel.
    fn capture(&self, channel: usize) -> Vec<i16> {
        let bytes = fs::read(self.dir.join("capture.raw")).unwrap_or_default();
        pcm::s16le_samples(&bytes)
            .into_iter()
            .skip(channel)
            .step_by(usize::from(self.channels))
            .collect()
    }

    /// Empties the capture for the next run. Truncated, not removed: a speech-dispatcher that
    /// stays alive between runs keeps the file open and goes on writing at its old offset (the
    /// hole before it reads back as silence).
    fn clear_capture(&self) {
        if let Ok(file) = fs::OpenOptions::new()
            .write(true)
            .open(self.dir.join("capture.raw"))
        {
            file.set_len(0).unwrap();
        }
    }
}

impl Drop for AudioEnv {
    fn drop(&mut self) {
        // End the speech-dispatcher this test's child started (found by the pid file in the
        // test's own runtime folder, so never anyone else's). A daemon without audio output
        // ignores SIGTERM, hence the KILL.
        let pid_file = self
            .dir
            .join("run/speech-dispatcher/pid/speech-dispatcher.pid");
        if let Ok(pid) = fs::read_to_string(&pid_file) {
            let pid = pid.trim().to_string();
            if !pid.is_empty() && pid.chars().all(|c| c.is_ascii_digit()) {
                let alive = |pid: &str| Path::new("/proc").join(pid).exists();
                // The shell's builtin kill: no procps needed on a minimal CI image.
                let kill = |signal: &str| {
                    let _ = Command::new("sh")
                        .args(["-c", &format!("kill -{signal} {pid}")])
                        .stderr(Stdio::null())
                        .status();
                };
                kill("TERM");
                let deadline = Instant::now() + Duration::from_secs(2);
                while alive(&pid) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(50));
                }
                if alive(&pid) {
                    kill("KILL");
                }
            }
        }
        if !std::thread::panicking() {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

/// The `key=value` fields of the probe's summary line.
fn summary(stdout: &str) -> std::collections::HashMap<String, String> {
    stdout
        .lines()
        .find(|l| l.starts_with("summary "))
        .unwrap_or_else(|| panic!("no summary in:\n{stdout}"))
        .split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Asserts that `samples` hold speech: loud enough, and lasting `min..max` seconds.
fn assert_speech(samples: &[i16], min: f64, max: f64, what: &str) -> usize {
    let span = pcm::voiced_span(samples, LOUD);
    let seconds = span as f64 / f64::from(CAPTURE_RATE);
    let first = samples
        .iter()
        .position(|s| s.unsigned_abs() > LOUD.unsigned_abs());
    let rms = first.map_or(0.0, |f| pcm::rms_i16(&samples[f..f + span]));
    assert!(
        rms > MIN_SPEECH_RMS,
        "{what}: no real sound captured (RMS {rms:.0} over {span} samples of {})",
        samples.len()
    );
    assert!(
        (min..=max).contains(&seconds),
        "{what}: {seconds:.2} s of sound, expected {min}..{max} s"
    );
    span
}

#[test]
fn the_clip_speaker_plays_real_sound_through_alsa() {
    let env = AudioEnv::new("clips", true, Sink::Capture(1));
    let transcript = env.dir.join("game/transcript.txt");
    let (ok, stdout, stderr) = env.speak_test(&[
        "--speaker",
        "clips",
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    assert!(ok, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let s = summary(&stdout);
    assert_eq!(s["spoken"], "1", "Finished(Spoken) was reported: {stdout}");
    assert_eq!(s["degraded"], "0", "{stdout}");
    assert!(
        s.contains_key("first_sound_median_ms"),
        "Started was reported: {stdout}"
    );
    // The clips take about 2.7 s with their gaps; all of it, and nothing else, was played.
    let expected = env.clip_utterance_len();
    let span = assert_speech(&env.capture(0), 1.0, 4.0, "clips");
    assert!(
        span <= expected && span * 10 >= expected * 7,
        "played {span} samples of sound, the utterance has {expected} (with the clips' own silence)"
    );
    let text = fs::read_to_string(&transcript).unwrap();
    let line = text.lines().next().unwrap_or_default();
    assert!(
        line.len() > 13
            && line.as_bytes()[2] == b':'
            && line.as_bytes()[8] == b'.'
            && line[12..] == *" blind Dame Hector fünf Schach",
        "transcript line: {line:?}"
    );
}

#[test]
fn the_clip_speaker_keeps_each_audience_on_its_side() {
    for (side, loud, quiet) in [("left", 0, 1), ("right", 1, 0)] {
        let env = AudioEnv::new("side", true, Sink::Capture(2));
        let (ok, stdout, stderr) = env.speak_test(&["--speaker", "clips", "--side", side]);
        assert!(ok, "stdout:\n{stdout}\nstderr:\n{stderr}");
        assert_speech(&env.capture(loud), 1.0, 4.0, side);
        let other = env.capture(quiet);
        assert_eq!(
            pcm::voiced_span(&other, LOUD),
            0,
            "{side}: the other side stays silent (RMS {:.0})",
            pcm::rms_i16(&other)
        );
    }
}

#[test]
fn the_tts_speaker_speaks_through_speech_dispatcher_twice_in_a_row() {
    let env = AudioEnv::new("tts", true, Sink::Capture(1));
    // The second run finds the first run's daemon still alive and must work with it too.
    for run in 1..=2 {
        env.clear_capture();
        let (ok, stdout, stderr) = env.speak_test(&["--speaker", "tts", "--tts-voice", "de"]);
        assert!(ok, "run {run}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        let s = summary(&stdout);
        assert_eq!(s["spoken"], "1", "run {run}: {stdout}");
        assert_eq!(
            s["degraded"], "0",
            "run {run}: the engine spoke, not the fallback: {stdout}"
        );
        assert!(
            stdout.contains("output blind: the speech engine"),
            "run {run}: {stdout}"
        );
        assert!(
            s.contains_key("first_sound_median_ms"),
            "run {run}: utterance-begin reported"
        );
        // "Dame Hector fünf Schach" at espeak-ng's normal rate: about 1.5-2 s.
        assert_speech(&env.capture(0), 0.8, 4.0, &format!("tts run {run}"));
    }
}

#[test]
fn the_tts_speaker_without_audio_output_falls_back_to_the_clips() {
    // Stock speech-dispatcher configuration and no pulse server: the engine starts and begins
    // the utterance but never finishes it. The deadline must catch that, and the clips must say
    // the announcement instead.
    let env = AudioEnv::new("tts-dead", false, Sink::Capture(1));
    let started = Instant::now();
    let (ok, stdout, stderr) = env.speak_test(&["--speaker", "tts", "--allow-fallback"]);
    assert!(ok, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let s = summary(&stdout);
    assert_eq!(s["spoken"], "1", "{stdout}");
    assert_eq!(s["degraded"], "1", "{stdout}");
    // Reported when the utterance hangs ("... speaking with clips from DIR ... instead") or, on a
    // loaded machine where the engine's start-up already times out, at start ("... speaking with
    // the clips instead").
    assert!(
        stdout.contains("speaking with clips") || stdout.contains("speaking with the clips"),
        "the fallback is reported: {stdout}"
    );
    assert!(started.elapsed() < Duration::from_secs(40));
    assert_speech(&env.capture(0), 1.0, 4.0, "fallback clips");
}

#[test]
fn a_missing_device_fails_the_announcement_but_the_speaker_reports_it() {
    let env = AudioEnv::new("nodevice", true, Sink::Capture(1));
    let (ok, stdout, _) = env.speak_test(&["--speaker", "clips", "--device", "no-such-device"]);
    assert!(!ok, "{stdout}");
    let s = summary(&stdout);
    assert_eq!(s["spoken"], "0", "{stdout}");
    assert!(
        stdout.contains("outcome=Failed") && stdout.contains("no-such-device"),
        "Finished(Failed) and a message naming the device: {stdout}"
    );
}

/// ALSA's usual configuration with its default output on a card no machine has (card 99): the
/// same failure as a machine without a sound card.
fn alsa_without_a_card() -> String {
    "</usr/share/alsa/alsa.conf>\ndefaults.pcm.!card 99\ndefaults.ctl.!card 99\n\
     pcm.!default cards.pcm.default\n"
        .to_string()
}

/// Replaces a file by a new one (a new inode: ALSA notices a changed configuration by the file's
/// identity and time, and the time has a one-second grain).
fn replace_file(path: &Path, text: &str) {
    let fresh = path.with_extension("new");
    fs::write(&fresh, text).unwrap();
    fs::rename(&fresh, path).unwrap();
}

#[test]
fn without_a_sound_card_speech_is_off_once_and_no_alsa_noise() {
    let env = AudioEnv::new("nocard", true, Sink::Capture(1));
    replace_file(&env.dir.join("alsa.conf"), &alsa_without_a_card());
    let transcript = env.dir.join("game/transcript.txt");
    let (ok, stdout, stderr) = env.speak_test(&[
        "--speaker",
        "clips",
        "--runs",
        "3",
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    assert!(!ok, "nothing was spoken: {stdout}");
    let s = summary(&stdout);
    assert_eq!(s["spoken"], "0", "{stdout}");
    assert_eq!(
        s["degraded"], "1",
        "said once, not per announcement: {stdout}"
    );
    assert!(
        stdout.contains(
            "degraded: no audio output: speech off, the transcript keeps every announcement"
        ),
        "{stdout}"
    );
    assert!(
        !stderr.contains("ALSA lib"),
        "ALSA's own lines reach standard error:\n{stderr}"
    );
    assert_eq!(
        stderr.matches("no audio output").count(),
        1,
        "one warning in the log:\n{stderr}"
    );
    let text = fs::read_to_string(&transcript).unwrap();
    assert_eq!(
        text.lines().count(),
        3,
        "every announcement is written: {text}"
    );
}

#[test]
fn a_sound_card_that_appears_later_is_used_from_the_next_announcement() {
    let env = AudioEnv::new("hotplug", true, Sink::Capture(1));
    let conf = env.dir.join("alsa.conf");
    let with_card = fs::read_to_string(&conf).unwrap();
    replace_file(&conf, &alsa_without_a_card());
    let args = ["--speaker", "clips", "--runs", "2", "--gap-ms", "1500"];
    let child = env.spawn_speak_test(&args);
    // The first announcement finds no output; then the "card" is plugged in.
    let started = Instant::now();
    while !fs::read_to_string(env.stdout_path())
        .unwrap_or_default()
        .contains("run=1 ")
    {
        assert!(started.elapsed() < CHILD_TIMEOUT, "no first run");
        std::thread::sleep(Duration::from_millis(10));
    }
    replace_file(&conf, &with_card);
    let (_, stdout, stderr) = env.finish(child, &args);
    assert!(
        stdout.contains("run=1 ") && stdout.contains("outcome=Failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("run=2 ") && stdout.contains("outcome=Spoken"),
        "the second announcement is heard: {stdout}\n{stderr}"
    );
    assert!(stdout.contains("recovered: "), "and reported: {stdout}");
    assert_speech(&env.capture(0), 1.0, 4.0, "after the card appeared");
}

/// The numbers in BENCHMARKS.md ("Speech latency"), on the null PCM so that only tactus and the
/// engine are measured (the file device adds the cost of truncating the previous capture to
/// every stream it opens).
#[test]
#[ignore = "benchmark: cargo test --release --test audio -- --ignored --nocapture speech_latency"]
fn speech_latency() {
    let runs = std::env::var("TACTUS_BENCH_RUNS").unwrap_or_else(|_| "50".into());
    for speaker in ["clips", "tts"] {
        let env = AudioEnv::new("bench", true, Sink::Null);
        let (ok, stdout, stderr) = env.speak_test(&["--speaker", speaker, "--runs", &runs]);
        assert!(ok, "stdout:\n{stdout}\nstderr:\n{stderr}");
        for line in stdout.lines().filter(|l| !l.starts_with("run=")) {
            println!("{line}");
        }
    }
}
