package command

// Incremental output, waiting for a job, and stopping every job.
//
// Cursors. `aw command output` returns a cursor "o:<stdout offset>,e:<stderr
// offset>": the byte offsets in the job's two log files up to which output
// has been returned (or skipped). The logs only grow, so a cursor stays
// valid for the job's whole life and the same position always spells the
// same cursor. A cursor that does not parse, or points past what the job
// has written, is INVALID_INPUT: it belongs to another job or was changed.
//
// The bound. Each call returns at most maxToolResultChars of JSON text for
// the two streams together (a stream with less to say lends the rest to
// the other), counted as the envelope encodes it (an escaped control
// character costs six). When the output since the cursor is larger, the
// newest part is returned, the cursor moves to the end, and droppedBytes
// says how many older bytes were skipped; they stay in the log files
// (.agentic/jobs/<job_id>/stdout.log, stderr.log), whose byte ranges the
// summary names, readable with `aw inspect read`.
//
// Encoding. Output is the raw bytes the command wrote. A window that is
// valid UTF-8 is returned as text (stdoutEncoding "utf-8"); one that is not
// is returned as base64 of the exact bytes (stdoutEncoding "base64"), never
// with replacement characters, so what a caller decodes is what the
// command wrote. While a job runs, a character it has written only part of
// is held back until the rest arrives, so a cut never makes valid output
// look invalid.

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
	"github.com/agentic-workspace/aw/output/visible"
)

// OutputRequest asks for what a job wrote since a cursor.
type OutputRequest struct {
	JobID  string `json:"job_id" doc:"the job to read"`
	Since  string `json:"since,omitempty" doc:"the cursor a previous output call returned (data.cursor); omit to read from the start"`
	WaitMs int    `json:"wait_ms,omitempty" doc:"milliseconds to wait for new output or the job's end, 0-30000 (default 0: answer at once)"`
}

// MaxWaitMs bounds output's wait: 30 seconds, as agent shell-output tools take.
const MaxWaitMs = 30000

// WaitRequest blocks until a job settles.
type WaitRequest struct {
	JobID          string   `json:"job_id" doc:"the job to wait for"`
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" doc:"seconds to wait, 1-3600 (default 60); a job still running then is a TIMEOUT error"`
	TailChars      *int     `json:"tail_chars,omitempty" doc:"characters from the end of each log, 100-20000, as status takes"`
}

// Wait bounds.
const (
	DefaultWaitSeconds = 60
	MaxWaitSeconds     = 3600
)

// Encodings of output text.
const (
	UTF8   = "utf-8"
	Base64 = "base64"
)

// Why an output call with wait_ms stopped waiting.
const (
	WokeOutput  = "output"  // new output arrived
	WokeEnded   = "ended"   // the job is no longer running
	WokeElapsed = "elapsed" // wait_ms passed with neither
)

// OutputData is the data of command.output.
type OutputData struct {
	JobID    string `json:"jobId"`
	Status   string `json:"status"`
	ExitCode *int   `json:"exitCode"`
	Signal   string `json:"signal,omitempty"`
	// Stdout and Stderr are what each stream wrote between Since (plus
	// the dropped bytes) and Cursor.
	Stdout         string `json:"stdout"`
	Stderr         string `json:"stderr"`
	StdoutEncoding string `json:"stdoutEncoding"`
	StderrEncoding string `json:"stderrEncoding"`
	Since          string `json:"since"`
	Cursor         string `json:"cursor"`
	// DroppedBytes are bytes after Since that did not fit and were
	// skipped (both streams); they are in the log files.
	DroppedBytes       int64 `json:"droppedBytes"`
	StdoutDroppedBytes int64 `json:"stdoutDroppedBytes"`
	StderrDroppedBytes int64 `json:"stderrDroppedBytes"`
	Truncated          bool  `json:"truncated"`
	// StdoutBytes and StderrBytes are the logs' sizes so far.
	StdoutBytes int64  `json:"stdoutBytes"`
	StderrBytes int64  `json:"stderrBytes"`
	StdoutPath  string `json:"stdoutPath"`
	StderrPath  string `json:"stderrPath"`
	WaitedMs    int64  `json:"waitedMs"`
	Woke        string `json:"woke,omitempty"`
}

// cursor is a position in a job's two logs.
type cursor struct{ out, err int64 }

func (c cursor) String() string { return fmt.Sprintf("o:%d,e:%d", c.out, c.err) }

var cursorPattern = lazyRegexp(`^o:(0|[1-9][0-9]{0,18}),e:(0|[1-9][0-9]{0,18})$`)

func parseCursor(s string) (cursor, bool) {
	m := cursorPattern().FindStringSubmatch(s)
	if m == nil {
		return cursor{}, false
	}
	o, err1 := strconv.ParseInt(m[1], 10, 64)
	e, err2 := strconv.ParseInt(m[2], 10, 64)
	return cursor{o, e}, err1 == nil && err2 == nil
}

// Output returns what a job wrote to stdout and stderr since a cursor,
// bounded by maxToolResultChars, and the next cursor. With wait_ms it first
// waits until there is new output or the job is no longer running.
func Output(ctx context.Context, ws *workspace.Workspace, req *OutputRequest) (envelope.Envelope, error) {
	if req.WaitMs < 0 || req.WaitMs > MaxWaitMs {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput,
			"wait_ms %d is out of range: pass 0 to %d (at most 30 seconds; call again to wait longer, or use `aw command wait` to wait for the end)", req.WaitMs, MaxWaitMs).With("wait_ms", req.WaitMs).With("max", MaxWaitMs)
	}
	j, err := load(ws.Store, req.JobID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	from := cursor{}
	if req.Since != "" {
		c, ok := parseCursor(req.Since)
		if !ok {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput,
				"since %q is not an output cursor: pass the data.cursor a previous `aw command output %s` returned (it looks like o:120,e:0), or omit since to read from the start", req.Since, j.ID).With("since", req.Since)
		}
		from = c
	}
	began := time.Now()
	j, out, errS, woke, err := awaitOutput(ctx, ws.Store, j, from, time.Duration(req.WaitMs)*time.Millisecond)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if from.out > out.size || from.err > errS.size {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput,
			"since %q points past what job %s has written (stdout %d bytes, stderr %d bytes): it is from another job or was changed; pass the cursor this job's last output call returned, or omit since to read from the start", req.Since, j.ID, out.size, errS.size).With("since", req.Since).With("stdoutBytes", out.size).With("stderrBytes", errS.size)
	}
	d := &OutputData{
		JobID: j.ID, Status: j.shownStatus(), ExitCode: j.ExitCode, Signal: j.Signal,
		Since: from.String(), StdoutBytes: out.size, StderrBytes: errS.size,
		StdoutPath: j.Stdout.Path, StderrPath: j.Stderr.Path, Woke: woke,
	}
	if req.WaitMs > 0 {
		d.WaitedMs = time.Since(began).Milliseconds()
	}
	live := j.live()
	budget := ws.Settings.MaxToolResultChars
	ow, ew, err := readWindows(out, errS, from, live, budget)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d.Stdout, d.StdoutEncoding, d.StdoutDroppedBytes = ow.text, ow.encoding, ow.dropped
	d.Stderr, d.StderrEncoding, d.StderrDroppedBytes = ew.text, ew.encoding, ew.dropped
	d.DroppedBytes = ow.dropped + ew.dropped
	d.Truncated = d.DroppedBytes > 0
	next := cursor{ow.end, ew.end}
	d.Cursor = next.String()

	summary := fmt.Sprintf("Job %s %s: %s of stdout and %s of stderr since %s.", j.ID, statusPhrase(j), bytesPhrase(ow.end-ow.start), bytesPhrase(ew.end-ew.start), d.Since)
	if d.Truncated {
		var skipped []string
		for _, w := range []struct {
			name string
			win  window
			path string
		}{{"stdout", ow, j.Stdout.Path}, {"stderr", ew, j.Stderr.Path}} {
			if w.win.dropped > 0 {
				skipped = append(skipped, fmt.Sprintf("%s bytes %d-%d are in %s", w.name, w.win.start-w.win.dropped, w.win.start, w.path))
			}
		}
		summary += fmt.Sprintf(" %d older bytes did not fit in the envelope and were skipped (the newest output is shown): %s (`aw inspect read PATH`).", d.DroppedBytes, strings.Join(skipped, "; "))
	}
	for _, w := range []struct {
		name string
		win  window
	}{{"stdout", ow}, {"stderr", ew}} {
		if w.win.encoding == Base64 {
			summary += fmt.Sprintf(" The new %s is not valid UTF-8: data.%s is base64 of the exact bytes.", w.name, w.name)
		}
	}
	if live {
		summary += fmt.Sprintf(" Next: `aw command output %s --since %s`.", j.ID, d.Cursor)
	}
	env := envelope.New("", summary, d)
	env.Fact("job %s %s; output cursor %s", j.ID, statusPhrase(j), d.Cursor)
	if d.Truncated {
		env.Fact("job %s: %d bytes of output skipped, kept in %s and %s", j.ID, d.DroppedBytes, j.Stdout.Path, j.Stderr.Path)
	}
	env.Omit("data.stdout", "data.stderr")
	env.Artifacts = logArtifacts(ws.Store, j)
	return env, nil
}

func bytesPhrase(n int64) string {
	if n == 1 {
		return "1 new byte"
	}
	return fmt.Sprintf("%d new bytes", n)
}

// logState is one log's size, read after the job's status.
type logState struct {
	path string
	size int64
}

func stat(s *store.Store, rel string) logState {
	return logState{path: logAbs(s, rel), size: logSize(s, rel)}
}

// awaitOutput reads the job's status and then its logs' sizes (in that
// order: a job seen ended has complete logs), waiting up to wait for
// output past from or for the job to stop running.
func awaitOutput(ctx context.Context, s *store.Store, j *Job, from cursor, wait time.Duration) (*Job, logState, logState, string, error) {
	deadline := time.Now().Add(wait)
	pause := 10 * time.Millisecond
	for {
		var err error
		if j, err = refresh(s, j); err != nil {
			return nil, logState{}, logState{}, "", err
		}
		out, errS := stat(s, j.Stdout.Path), stat(s, j.Stderr.Path)
		if wait <= 0 {
			return j, out, errS, "", nil
		}
		switch {
		case !j.live():
			return j, out, errS, WokeEnded, nil
		case from.out > out.size || from.err > errS.size:
			return j, out, errS, "", nil // a bad cursor: refused at once
		case readable(out, from.out, true) > from.out || readable(errS, from.err, true) > from.err:
			return j, out, errS, WokeOutput, nil
		case !time.Now().Before(deadline):
			return j, out, errS, WokeElapsed, nil
		}
		if !sleep(ctx, min(pause, time.Until(deadline))) {
			return j, out, errS, WokeElapsed, nil
		}
		pause = min(pause*2, 100*time.Millisecond)
		if j, err = load(s, j.ID); err != nil {
			return nil, logState{}, logState{}, "", err
		}
	}
}

// sleep pauses for d unless ctx ends first (then it reports false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// readable is where complete output ends in a log: while the job runs, a
// character written only in part (the last one to three bytes start a
// multi-byte sequence that is not finished yet) is held back.
func readable(l logState, from int64, live bool) int64 {
	if !live || l.size <= from {
		return l.size
	}
	n := min(l.size-from, utf8.UTFMax)
	buf := make([]byte, n)
	f, err := os.Open(l.path)
	if err != nil {
		return l.size
	}
	defer f.Close()
	if _, err := f.ReadAt(buf, l.size-n); err != nil {
		return l.size
	}
	for i := len(buf) - 1; i >= 0; i-- {
		if utf8.RuneStart(buf[i]) {
			if buf[i] >= utf8.RuneSelf && !utf8.FullRune(buf[i:]) && len(buf)-i < utf8.UTFMax {
				return l.size - int64(len(buf)-i)
			}
			break
		}
	}
	return l.size
}

// window is the part of one log an output call returns.
type window struct {
	start, end int64 // byte offsets in the log: [start, end) is returned
	dropped    int64 // bytes before start, after the cursor, skipped
	text       string
	encoding   string
	cost       int // JSON characters text takes in the envelope
}

// readWindows splits the budget between the two streams: half each, and
// what one does not need goes to the other.
func readWindows(out, errS logState, from cursor, live bool, budget int) (window, window, error) {
	half := budget / 2
	ew, err := readWindow(errS, from.err, live, half)
	if err != nil {
		return window{}, window{}, err
	}
	ow, err := readWindow(out, from.out, live, budget-ew.cost)
	if err != nil {
		return window{}, window{}, err
	}
	if ew.dropped > 0 && ow.cost < budget-half {
		if ew, err = readWindow(errS, from.err, live, budget-ow.cost); err != nil {
			return window{}, window{}, err
		}
	}
	return ow, ew, nil
}

// readWindow reads the newest bytes of l after from that fit in budget
// JSON characters. Memory is bounded by the budget, whatever the log's size.
func readWindow(l logState, from int64, live bool, budget int) (window, error) {
	end := readable(l, from, live)
	w := window{start: end, end: end, encoding: UTF8}
	if end <= from {
		return w, nil
	}
	// A few bytes more than the budget: the walk below then always stops
	// on the budget before the front of a cut read, where a character may
	// have lost its first bytes.
	n := min(end-from, int64(budget)+utf8.UTFMax)
	cut := end-n > from
	buf := make([]byte, n)
	f, err := os.Open(l.path)
	if err != nil {
		return window{}, envelope.Errorf(envelope.Internal, "cannot read the job's log: %v; check permissions under .agentic/jobs/", err)
	}
	defer f.Close()
	if _, err := f.ReadAt(buf, end-n); err != nil && err != io.EOF {
		return window{}, envelope.Errorf(envelope.Internal, "cannot read the job's log: %v; check permissions under .agentic/jobs/", err)
	}
	// Walk back from the end a character at a time while it fits.
	i, cost, valid := len(buf), 0, true
	for i > 0 {
		r, size := utf8.DecodeLastRune(buf[:i])
		if r == utf8.RuneError && size == 1 {
			if cut && i < utf8.UTFMax {
				break // the tail of a character whose start is not read
			}
			valid = false
			break
		}
		c := jsonCost(r, size)
		if cost+c > budget {
			break
		}
		cost += c
		i -= size
	}
	if valid {
		w.start = end - int64(len(buf)-i)
		w.text, w.cost = string(buf[i:]), cost
	} else {
		// Not UTF-8: base64 of the newest bytes that fit (4 characters
		// for every 3 bytes).
		keep := min(int64(len(buf)), int64(budget/4*3))
		raw := buf[int64(len(buf))-keep:]
		w.start = end - keep
		w.text, w.encoding = base64.StdEncoding.EncodeToString(raw), Base64
		w.cost = len(w.text)
	}
	w.dropped = w.start - from
	return w, nil
}

// jsonCost is how many bytes a character takes inside a JSON string as aw
// encodes envelopes (for the command line and for MCP, which also escapes
// <, > and &).
func jsonCost(r rune, size int) int {
	if r >= 0x20 && r < 0x7f && r != '"' && r != '\\' && r != '<' && r != '>' && r != '&' {
		return 1
	}
	switch {
	case r == '"', r == '\\', r == '\n', r == '\r', r == '\t', r == '\b', r == '\f':
		return 2
	case r == '<', r == '>', r == '&':
		return 6
	case r < 0x20 || visible.Hidden(r):
		if r > 0xffff {
			return 12
		}
		return 6
	}
	return size
}

// Wait blocks until a job is no longer running (or the timeout passes:
// then TIMEOUT, saying it still runs) and returns what status returns.
func Wait(ctx context.Context, ws *workspace.Workspace, req *WaitRequest) (envelope.Envelope, error) {
	timeout := float64(DefaultWaitSeconds)
	if req.TimeoutSeconds != nil {
		timeout = *req.TimeoutSeconds
		if math.IsNaN(timeout) || timeout < 1 || timeout > MaxWaitSeconds {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput,
				"timeout_seconds %v is out of range: pass 1 to %d seconds (default %d); to look without waiting use `aw command status`", timeout, MaxWaitSeconds, DefaultWaitSeconds).With("timeout_seconds", timeout)
		}
	}
	if err := checkTailChars(req.TailChars); err != nil {
		return envelope.Envelope{}, err
	}
	j, err := load(ws.Store, req.JobID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	began := time.Now()
	deadline := began.Add(time.Duration(timeout * float64(time.Second)))
	pause := 10 * time.Millisecond
	waited := false // the job was still running at the first look
	for {
		if j, err = refresh(ws.Store, j); err != nil {
			return envelope.Envelope{}, err
		}
		if !j.live() {
			break
		}
		waited = true
		left := time.Until(deadline)
		if left <= 0 || !sleep(ctx, min(pause, left)) {
			waited := time.Since(began)
			return envelope.Envelope{}, envelope.Errorf(envelope.Timeout,
				"job %s is still running after waiting %s (pid %d, running for %s): wait again with `aw command wait %s --timeout S`, read its output with `aw command output %s`, or stop it with `aw command cancel %s`",
				j.ID, ms(waited.Milliseconds()), j.Pid, ms(time.Since(j.StartedAt).Milliseconds()), j.ID, j.ID, j.ID).
				With("jobId", j.ID).With("status", Running).With("pid", j.Pid).With("timeoutSeconds", timeout)
		}
		pause = min(pause*2, 200*time.Millisecond)
		if j, err = load(ws.Store, j.ID); err != nil {
			return envelope.Envelope{}, err
		}
	}
	env, err := Status(ctx, ws, &StatusRequest{JobID: j.ID, TailChars: req.TailChars})
	if err != nil {
		return env, err
	}
	if waited {
		env.Summary = fmt.Sprintf("Waited %s. %s", ms(time.Since(began).Milliseconds()), env.Summary)
	}
	return env, nil
}

// CancelAllData is the data of `aw command cancel --all`.
type CancelAllData struct {
	// Cancelled are the jobs this call stopped, with their final status.
	Cancelled []Entry `json:"cancelled"`
	// AlreadyFinished were running when the call began and ended by
	// themselves before it stopped them.
	AlreadyFinished []string `json:"alreadyFinished"`
	Count           int      `json:"count"`
}

// cancelAll stops every running job of the workspace (and every orphaned
// one whose tree is still alive), each as `aw command cancel JOB` does, all
// at once: the grace periods overlap instead of adding up.
func cancelAll(ctx context.Context, ws *workspace.Workspace) (envelope.Envelope, error) {
	all, err := ids(ws.Store)
	if err != nil {
		return envelope.Envelope{}, err
	}
	var targets []string
	for _, id := range all {
		j, err := load(ws.Store, id)
		if err != nil {
			if envelope.CodeOf(err) == envelope.NotFound {
				continue
			}
			return envelope.Envelope{}, err
		}
		if j.live() || (j.Status == Orphaned && j.Pid != 0 && groupAlive(j.Pid)) {
			targets = append(targets, id)
		}
	}
	type outcome struct {
		env envelope.Envelope
		err error
	}
	results := make([]outcome, len(targets))
	var wg sync.WaitGroup
	for i, id := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env, err := Cancel(ctx, ws, &CancelRequest{JobID: id})
			results[i] = outcome{env, err}
		}()
	}
	wg.Wait()
	d := CancelAllData{Cancelled: []Entry{}, AlreadyFinished: []string{}}
	var failed []string
	var still []string
	for i, res := range results {
		if res.err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", targets[i], res.err))
			continue
		}
		r, _ := res.env.Data.(*Result)
		switch {
		case r == nil:
			failed = append(failed, targets[i]+": no result")
		case r.AlreadyFinished:
			d.AlreadyFinished = append(d.AlreadyFinished, r.JobID)
		default:
			if r.Status == Running {
				still = append(still, r.JobID)
			}
			j := &Job{Executable: r.Executable, Args: r.Args, Line: r.Line}
			d.Cancelled = append(d.Cancelled, Entry{ID: r.JobID, Action: r.Action, Status: r.Status, Executable: r.Executable,
				Command: clip(display(j), 200), ExitCode: r.ExitCode, Pid: r.Pid, StartedAt: r.StartedAt, EndedAt: r.EndedAt})
		}
	}
	d.Count = len(d.Cancelled)
	if len(failed) > 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal,
			"cancel --all could not stop every job: %s; %d were stopped. Check each with `aw command status JOB` and retry `aw command cancel JOB`", strings.Join(failed, "; "), d.Count).With("failed", failed).With("cancelled", d.Count)
	}
	var summary string
	switch {
	case len(targets) == 0:
		summary = "No job was running: nothing was stopped."
	default:
		names := make([]string, 0, len(d.Cancelled))
		for _, e := range d.Cancelled {
			names = append(names, fmt.Sprintf("%s (`%s`)", e.ID, clip(e.Command, 80)))
		}
		what := "jobs, each process tree"
		if d.Count == 1 {
			what = "job, its process tree"
		}
		summary = fmt.Sprintf("Cancelled %d running %s stopped: %s.", d.Count, what, strings.Join(names, ", "))
		if d.Count == 0 {
			summary = "No job was left to stop."
		}
		if len(d.AlreadyFinished) > 0 {
			summary += fmt.Sprintf(" %s ended by itself before it was stopped.", strings.Join(d.AlreadyFinished, ", "))
		}
		if len(still) > 0 {
			summary += fmt.Sprintf(" %s were signalled but their supervisors have not recorded the end yet; check `aw command status JOB`.", strings.Join(still, ", "))
		}
	}
	env := envelope.New("", summary, d)
	for _, e := range d.Cancelled {
		env.Fact("job %s cancelled (status %s): %s", e.ID, e.Status, e.Command)
	}
	if len(still) > 0 {
		env.Retention.Importance = envelope.High
	}
	return env, nil
}
