//go:build !linux && !darwin

package sandbox

import "runtime"

// Detect: aw has no OS sandbox on this system (Windows included), and
// says so.
func Detect(p *Policy) Availability {
	return Availability{Mechanism: None, Reason: "aw has no OS sandbox on " + runtime.GOOS + ": commands run with the user's full rights, bounded only by the command policy"}
}
