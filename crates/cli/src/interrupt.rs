//! Interruptions leave no output behind: on SIGINT, SIGTERM or SIGHUP, the named temporary
//! files still being written are removed before the process ends as the signal would have
//! ended it. Unnamed temporary files (where the filesystem has `O_TMPFILE`, see
//! `cipherlab-outfile`) need nothing: they never had a name. Only SIGKILL cannot be caught.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// Starts the thread that waits for those signals (once, at start-up).
pub fn remove_outputs_on_signals() {
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            cipherlab_outfile::remove_pending();
            // Die of the signal, so the exit status says what happened (130, 143, 129).
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(crate::exit::of_signal(sig));
        }
    });
}
