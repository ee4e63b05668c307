package output

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// jobView is a job's record (the command line, how it ended, where it
// ran, its logs) and the tails of its output as text. A run whose output
// was streamed to the terminal as it ran leaves the tails out.
func jobView(w io.Writer, d viewData, f Format) bool {
	var j struct {
		JobID              string     `json:"jobId"`
		Action             string     `json:"action"`
		Status             string     `json:"status"`
		Executable         string     `json:"executable"`
		Args               []string   `json:"args"`
		Line               string     `json:"line"`
		ResolvedExecutable string     `json:"resolvedExecutable"`
		Cwd                string     `json:"cwd"`
		TimeoutSeconds     float64    `json:"timeoutSeconds"`
		Sandbox            *sandbox   `json:"sandbox"`
		Pid                int        `json:"pid"`
		ExitCode           *int       `json:"exitCode"`
		Signal             string     `json:"signal"`
		TimedOut           bool       `json:"timedOut"`
		Cancelled          bool       `json:"cancelled"`
		StartedAt          time.Time  `json:"startedAt"`
		EndedAt            *time.Time `json:"endedAt"`
		DurationMs         int64      `json:"durationMs"`
		StdoutTail         *string    `json:"stdoutTail"`
		StderrTail         *string    `json:"stderrTail"`
		StdoutTruncated    bool       `json:"stdoutTruncated"`
		StderrTruncated    bool       `json:"stderrTruncated"`
		StdoutBytes        int64      `json:"stdoutBytes"`
		StderrBytes        int64      `json:"stderrBytes"`
		StdoutPath         string     `json:"stdoutPath"`
		StderrPath         string     `json:"stderrPath"`
		Error              string     `json:"error"`
	}
	if !d.decode(&j) || j.JobID == "" {
		return false
	}
	line := j.Line
	if line == "" {
		line = envelope.QuoteArgv(append([]string{j.Executable}, j.Args...))
	}
	ended := ""
	if j.EndedAt != nil {
		ended = when(*j.EndedAt)
	}
	pid := ""
	if j.Pid > 0 && j.EndedAt == nil {
		pid = fmt.Sprint(j.Pid)
	}
	timeout := "none"
	if j.TimeoutSeconds > 0 {
		timeout = fmt.Sprintf("%gs", j.TimeoutSeconds)
	}
	outcome, color := jobOutcome(j.Status, j.ExitCode, j.Signal, j.TimedOut, j.Cancelled)
	if j.EndedAt != nil {
		outcome += " in " + (time.Duration(j.DurationMs) * time.Millisecond).String()
	}
	record(w, []field{
		{label: "job", value: j.JobID, color: yellow},
		{label: "command", value: line},
		{label: "status", value: outcome, color: color},
		{label: "cwd", value: j.Cwd},
		{label: "timeout", value: timeout},
		{label: "sandbox", value: j.Sandbox.String()},
		{label: "pid", value: pid},
		{label: "started", value: when(j.StartedAt)},
		{label: "ended", value: ended},
		{label: "stdout", value: logLine(j.StdoutBytes, j.StdoutPath)},
		{label: "stderr", value: logLine(j.StderrBytes, j.StderrPath)},
		{label: "error", value: j.Error, color: red},
	}, f)
	if f.Streamed {
		return true
	}
	for _, t := range []struct {
		name string
		tail *string
		cut  bool
	}{{"stdout", j.StdoutTail, j.StdoutTruncated}, {"stderr", j.StderrTail, j.StderrTruncated}} {
		if t.tail == nil {
			continue
		}
		title := t.name + ":"
		if t.cut {
			title = t.name + " (the end of it):"
		}
		block(w, title, *t.tail, f)
	}
	return true
}

type sandbox struct {
	Mechanism string `json:"mechanism"`
	Mode      string `json:"mode"`
	Network   bool   `json:"network"`
	Reason    string `json:"reason"`
}

func (s *sandbox) String() string {
	if s == nil {
		return ""
	}
	net := "no network"
	if s.Network {
		net = "network"
	}
	if s.Mechanism == "" || s.Mechanism == "none" {
		return "none (" + s.Reason + ")"
	}
	return s.Mechanism + ", " + net
}

// jobOutcome is how a job stands in words ("exited 0", "killed by
// SIGKILL (timed out)") and its color: green a zero exit, red any other
// end, yellow still running.
func jobOutcome(status string, exit *int, signal string, timedOut, cancelled bool) (string, string) {
	s := strings.ReplaceAll(status, "_", " ")
	color := statusColors[status]
	switch {
	case exit != nil:
		s = fmt.Sprintf("exited %d", *exit)
		if *exit != 0 {
			color = red
		}
	case signal != "":
		s += " by " + signal
		color = red
	}
	if timedOut {
		s += " (timed out)"
		color = red
	}
	if cancelled {
		s += " (cancelled)"
	}
	return s, color
}

func logLine(n int64, path string) string {
	if path == "" {
		return ""
	}
	return fmt.Sprintf("%-10s %s", fmt.Sprintf("%d bytes", n), path)
}

// outputView is what command output read: where the cursor stands and
// the new output of each stream as text.
func outputView(w io.Writer, d viewData, f Format) bool {
	var o struct {
		JobID          string `json:"jobId"`
		Status         string `json:"status"`
		ExitCode       *int   `json:"exitCode"`
		Signal         string `json:"signal"`
		Stdout         string `json:"stdout"`
		Stderr         string `json:"stderr"`
		StdoutEncoding string `json:"stdoutEncoding"`
		StderrEncoding string `json:"stderrEncoding"`
		Cursor         string `json:"cursor"`
		DroppedBytes   int64  `json:"droppedBytes"`
	}
	if !d.decode(&o) || o.JobID == "" {
		return false
	}
	outcome, color := jobOutcome(o.Status, o.ExitCode, o.Signal, false, false)
	dropped := ""
	if o.DroppedBytes > 0 {
		dropped = fmt.Sprintf("%d bytes did not fit; they are in the logs", o.DroppedBytes)
	}
	record(w, []field{
		{label: "job", value: o.JobID, color: yellow},
		{label: "status", value: outcome, color: color},
		{label: "next", value: "--since " + o.Cursor},
		{label: "skipped", value: dropped},
	}, f)
	for _, s := range []struct{ name, text, encoding string }{{"stdout", o.Stdout, o.StdoutEncoding}, {"stderr", o.Stderr, o.StderrEncoding}} {
		title := s.name + ":"
		if s.encoding != "" && s.encoding != "utf-8" {
			title = fmt.Sprintf("%s (%s):", s.name, s.encoding)
		}
		block(w, title, s.text, f)
	}
	return true
}
