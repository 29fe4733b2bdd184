// Package calibrate is replay calibrate: a designed grid of single requests (prompt and output
// lengths, each prompt again with its prefix cached) replayed by runner.Run as one session
// gated on its answers, so the engine is idle when each arrives; the curves fitted to them
// (analysis.Calibration, which a loaded run also reads to split its TTFT) written as
// calibration.json, with calibration.html and the terminal summary from here. It must not fit
// curves itself (analysis does) or send requests but through a run.
package calibrate
