// Package proc owns what aw knows about a process from outside: whether it
// is still the one that was started, and its /proc stat line. It never
// starts, signals or waits for a process; engine/command and
// engine/browser do, each with its own group rules.
package proc

// Stat is the part of /proc/<pid>/stat aw reads.
type Stat struct {
	State  byte   // R, S, D, Z (zombie), X (dead), ...
	Parent int    // parent process id
	Group  int    // process group id
	Start  uint64 // start time in clock ticks since boot
}

// Living reports a process that is neither a zombie nor dead.
func (s Stat) Living() bool { return s.State != 'Z' && s.State != 'X' }

// Owned is a long-lived process aw started for a workspace, as its owner
// record (a job's or a browser session's) names it.
type Owned struct {
	Kind       string `json:"kind"` // job, job-supervisor, browser, browser-watchdog
	ID         string `json:"id"`   // the job or session it belongs to
	Pid        int    `json:"pid"`
	AgeSeconds int64  `json:"ageSeconds"`
}
