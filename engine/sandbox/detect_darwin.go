package sandbox

import "os"

// Detect finds sandbox-exec (Seatbelt), present on every macOS release.
func Detect(p *Policy) Availability {
	const exe = "/usr/bin/sandbox-exec"
	if _, err := os.Stat(exe); err != nil {
		return Availability{Mechanism: None, Reason: "/usr/bin/sandbox-exec is missing"}
	}
	return Availability{Mechanism: Seatbelt, Path: exe}
}
