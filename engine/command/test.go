package command

// command test: the workspace's test command
// (commands.testCommand, else the one the project's files suggest) run as
// a foreground job through exactly the path of `command run` — the policy,
// the gate, the OS sandbox, the job record, the timeout — with the
// caller's pattern and path added as argv elements in the runner's own
// filter syntax, never spliced into a line. The test command is always an
// argv, also when commands.interpreter is sh, so no shell ever reads the
// pattern. Its logs are read back into counts and failing tests.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// TestRequest is the argument object of command test.
type TestRequest struct {
	Pattern        string   `json:"pattern,omitempty" doc:"select tests by name in the runner's own filter syntax, passed as one argument: go test -run REGEXP; npm test -- with the test script's flag (-t for jest and vitest, --test-name-pattern for node --test, --grep for mocha); pytest -k EXPR; cargo test FILTER"`
	Path           string   `json:"path,omitempty" doc:"narrow the run to a package, directory or file of the workspace (go: DIR or DIR/...; pytest: FILE::TEST too; cargo: a crate directory)"`
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" doc:"seconds before the process tree is killed (default and cap: commands.maxSeconds)"`
}

// maxPatternBytes bounds a pattern: a test-name filter, not a document.
const maxPatternBytes = 1000

// TestData is the data of command.test.
type TestData struct {
	JobID  string `json:"jobId"`
	Runner string `json:"runner"`
	// TestCommand is the configured (or detected) command; Argv is what
	// ran, with AddedArgs the words aw added to it.
	TestCommand string   `json:"testCommand"`
	Source      string   `json:"source"` // "commands.testCommand" or the file it was detected from
	Argv        []string `json:"argv"`
	AddedArgs   []string `json:"addedArgs"`
	Pattern     string   `json:"pattern,omitempty"`
	Path        string   `json:"path,omitempty"`

	Status     string `json:"status"`
	ExitCode   *int   `json:"exitCode"`
	TimedOut   bool   `json:"timedOut"`
	Cancelled  bool   `json:"cancelled"`
	DurationMs int64  `json:"durationMs"`

	// CountsKnown is false when the output held no result aw can read:
	// the counts are then null and the exit code is the result.
	CountsKnown bool `json:"countsKnown"`
	Passed      *int `json:"passed"`
	Failed      *int `json:"failed"`
	Skipped     *int `json:"skipped"`
	// Failures are the failing tests (at most maxListedFailures), each
	// with the end of its output; FailuresOmitted counts the rest.
	Failures        []TestFailure `json:"failures"`
	FailuresOmitted int           `json:"failuresOmitted,omitempty"`

	// The tails of the logs come inline only when nothing else says why
	// the run failed (counts unknown, or a failure without a failing test).
	StdoutTail      *string         `json:"stdoutTail,omitempty"`
	StderrTail      *string         `json:"stderrTail,omitempty"`
	StdoutTruncated bool            `json:"stdoutTruncated,omitempty"`
	StderrTruncated bool            `json:"stderrTruncated,omitempty"`
	StdoutPath      string          `json:"stdoutPath"`
	StderrPath      string          `json:"stderrPath"`
	Sandbox         *sandbox.Report `json:"sandbox,omitempty"`
	Notes           []string        `json:"notes"`
}

// TestFailure is one failing test. Name is empty for a failure of a
// whole package (it did not build, or it failed outside any test).
type TestFailure struct {
	Name            string `json:"name"`
	Package         string `json:"package,omitempty"`
	Output          string `json:"output"`
	OutputTruncated bool   `json:"outputTruncated,omitempty"`
}

// Test runs the workspace's tests.
func Test(ctx context.Context, ws *workspace.Workspace, req *TestRequest) (envelope.Envelope, error) {
	if err := validatePattern(req.Pattern); err != nil {
		return envelope.Envelope{}, err
	}
	line, source, err := testCommand(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	base, err := workspace.TestArgv(line)
	if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "commands.testCommand %q cannot be run: %v; a human fixes it with `aw config set commands.testCommand '...'`", line, err).With("setting", "commands.testCommand")
	}
	r := findRunner(base)
	if r.name == "npm" {
		r = npmFilter(r, ws.Jail.Scope)
	}
	operand := ""
	if req.Path != "" {
		if operand, err = testPath(ws, r, req.Path); err != nil {
			return envelope.Envelope{}, err
		}
	}
	argv, notes, err := r.apply(base, req.Pattern, operand)
	if err != nil {
		return envelope.Envelope{}, err
	}
	resume := map[string]any{"action": "test"}
	if req.Pattern != "" {
		resume["pattern"] = req.Pattern
	}
	if req.Path != "" {
		resume["path"] = req.Path
	}
	if req.TimeoutSeconds != nil {
		resume["timeout_seconds"] = *req.TimeoutSeconds
	}
	creq := &Request{Executable: argv[0], Args: argv[1:], TimeoutSeconds: req.TimeoutSeconds, resume: resume}
	j, capped, staged, err := foreground(ws, creq, "test")
	if err != nil || staged != nil {
		return deref(staged), err
	}
	if source != "commands.testCommand" {
		notes = append(notes, fmt.Sprintf("commands.testCommand is not set: aw ran %q, detected from %s; a human sets it with `aw config set commands.testCommand '...'`", line, source))
	}
	if capped {
		notes = append(notes, fmt.Sprintf("timeout_seconds was capped at commands.maxSeconds (%s)", seconds(j.TimeoutSeconds)))
	}
	res := parseResults(ws.Store, j, r)
	if res.counted && res.passed+res.failed+res.skipped == 0 && req.Pattern != "" {
		res.notes = append(res.notes, fmt.Sprintf("no test matched the pattern %q: check the name, and that it is in the runner's filter syntax", clip(req.Pattern, 200)))
	}
	return testEnvelope(ws, j, r, res, TestData{
		JobID: j.ID, Runner: r.name, TestCommand: line, Source: source, Argv: j.Argv, AddedArgs: added(base, argv),
		Pattern: req.Pattern, Path: req.Path, Notes: notes,
	})
}

// testCommand is commands.testCommand, else the first command the
// project's files suggest, with where it came from.
func testCommand(ws *workspace.Workspace) (line, source string, err error) {
	if line = strings.TrimSpace(ws.Settings.Commands.TestCommand); line != "" {
		return line, "commands.testCommand", nil
	}
	if c := workspace.DetectTestCommands(ws.Jail.Scope); len(c) > 0 {
		return c[0].Command, c[0].File, nil
	}
	return "", "", envelope.Errorf(envelope.ToolDisabled,
		"there is no test command: commands.testCommand is not set and the workspace has no go.mod, package.json with a test script, Cargo.toml, pytest.ini, pyproject.toml, setup.cfg, tox.ini or Makefile with a test target. A human sets one with `aw config set commands.testCommand 'go test ./...'` (one command, run without a shell); until then run the tests with `aw command run -- ...`").With("setting", "commands.testCommand")
}

// validatePattern refuses what no runner reads as a name filter: a
// newline or a double quote (refused at input, as test tools do), a NUL, and a
// leading dash, which a runner taking the pattern as an operand would read
// as an option.
func validatePattern(p string) error {
	bad := func(why string) error {
		return envelope.Errorf(envelope.InvalidInput, "pattern %q is refused: %s", clip(p, 200), why).With("pattern", clip(p, 200))
	}
	switch {
	case p == "":
		return nil
	case len(p) > maxPatternBytes:
		return bad(fmt.Sprintf("it is %d bytes; a test-name filter has at most %d", len(p), maxPatternBytes))
	case strings.ContainsAny(p, "\x00\n\r"):
		return bad("it contains a newline or NUL byte; pass one line naming the tests")
	case strings.ContainsRune(p, '"'):
		return bad("it contains a double quote; match the name without it (a regular expression can use . for any character)")
	case strings.HasPrefix(p, "-"):
		return bad("it starts with '-', which a test runner would read as an option; start it with another character (in a regular expression, [-] matches a dash)")
	}
	return nil
}

// testPath jails the path and spells it as the runner's operand, relative
// to the directory the tests run in.
func testPath(ws *workspace.Workspace, r *testRunner, raw string) (string, error) {
	if r.path == nil {
		return "", envelope.Errorf(envelope.InvalidInput, "%s: aw does not know how to narrow this runner to a path; run all the tests without --path, or a human sets commands.testCommand to the runner itself (go test ./..., pytest, npm test, cargo test)", r.refusal()).With("path", clip(raw, 200))
	}
	p, suffix := raw, ""
	if r.name == "go" {
		switch {
		case p == "...":
			p, suffix = ".", "/..."
		case strings.HasSuffix(p, "/..."):
			p, suffix = strings.TrimSuffix(p, "/..."), "/..."
		}
	}
	if r.name == "pytest" {
		if i := strings.Index(p, "::"); i >= 0 {
			p, suffix = p[:i], p[i:]
		}
	}
	res, err := ws.Jail.Resolve(p, workspace.Read)
	if err != nil {
		return "", err
	}
	if res.Outside {
		return "", envelope.Errorf(envelope.PathEscape, "path %q is outside the workspace: tests run on the workspace's own files; pass a path relative to the root", raw).With("path", clip(raw, 200))
	}
	fi, err := os.Stat(res.Abs)
	if err != nil {
		return "", envelope.Errorf(envelope.NotFound, "path %q does not exist in the workspace; pass an existing package, directory or file relative to the root (`aw inspect list` shows them)", raw).With("path", clip(raw, 200))
	}
	rel, err := filepath.Rel(ws.Jail.Scope, res.Abs)
	if err != nil {
		return "", envelope.Errorf(envelope.Internal, "cannot spell %s relative to the workspace: %v", raw, err)
	}
	return r.path(filepath.ToSlash(rel), fi.IsDir(), suffix)
}

// added is what argv has beyond base, in order: the words aw added.
func added(base, argv []string) []string {
	out := []string{}
	i := 0
	for _, a := range argv {
		if i < len(base) && a == base[i] {
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// maxListedFailures bounds the failing tests listed inline.
const maxListedFailures = 20

// testEnvelope is test's result: the counts, the failing tests with the
// ends of their output, bounded by maxToolResultChars, and the logs as
// artifacts.
func testEnvelope(ws *workspace.Workspace, j *Job, r *testRunner, res *testResults, d TestData) (envelope.Envelope, error) {
	d.Status, d.ExitCode, d.TimedOut, d.Cancelled, d.DurationMs = j.shownStatus(), j.ExitCode, j.TimedOut, j.Cancelled, j.DurationMs
	d.StdoutPath, d.StderrPath, d.Sandbox = j.Stdout.Path, j.Stderr.Path, j.Sandbox
	d.Notes = append(d.Notes, res.notes...)
	if res.counted {
		d.CountsKnown = true
		d.Passed, d.Failed, d.Skipped = &res.passed, &res.failed, &res.skipped
	}
	d.Failures = append([]TestFailure{}, res.failures...)
	if len(d.Failures) > maxListedFailures {
		d.FailuresOmitted = len(d.Failures) - maxListedFailures
		d.Failures = d.Failures[:maxListedFailures]
	}
	d.FailuresOmitted += res.omitted
	budget := ws.Settings.MaxToolResultChars
	explained := false
	if len(d.Failures) > 0 {
		// Half the budget for the excerpts, shared evenly.
		each := budget / 2 / len(d.Failures)
		for i := range d.Failures {
			f := &d.Failures[i]
			if f.Output != "" {
				explained = true
			}
			if len(f.Output) > each {
				f.Output, f.OutputTruncated = tailString(f.Output, each), true
			}
		}
	}
	failing := deref0(j.ExitCode) != 0 || j.Status != Exited
	if !d.CountsKnown || (failing && !explained) {
		// Nothing but the output says what happened: its tails, within
		// what the excerpts left.
		rest := budget - budget/2
		if len(d.Failures) == 0 {
			rest = budget
		}
		tr := &Result{}
		outChars, errChars := rest/2, rest-rest/2
		if err := addTails(ws.Store, j, tr, outChars, errChars, int64(ws.Settings.Commands.MaxOutputBytes)); err != nil {
			return envelope.Envelope{}, err
		}
		d.StdoutTail, d.StderrTail, d.StdoutTruncated, d.StderrTruncated = tr.StdoutTail, tr.StderrTail, tr.StdoutTruncated, tr.StderrTruncated
	}

	what := clip(display(j), 200)
	var summary string
	switch {
	case j.Status == TimedOut:
		summary = fmt.Sprintf("Tests (job %s, `%s`) timed out after %s and the process tree was killed.", j.ID, what, seconds(j.TimeoutSeconds))
	case j.Status == Cancelled || j.Status == Killed:
		summary = fmt.Sprintf("Tests (job %s, `%s`) %s after %s.", j.ID, what, statusPhrase(j), ms(j.DurationMs))
	case d.CountsKnown:
		summary = fmt.Sprintf("Tests: %d passed, %d failed, %d skipped (job %s, `%s`, exit %d in %s).", res.passed, res.failed, res.skipped, j.ID, what, deref0(j.ExitCode), ms(j.DurationMs))
	default:
		summary = fmt.Sprintf("Tests (job %s, `%s`) exited %d in %s; aw found no result it can read in the output of %s, so the counts are unknown: the exit code is the result, and the tails of the logs are in data.", j.ID, what, deref0(j.ExitCode), ms(j.DurationMs), r.display())
	}
	if names := failureNames(d.Failures, 5); names != "" {
		summary += " Failing: " + names
		if n := len(d.Failures) + d.FailuresOmitted - min(len(d.Failures), 5); n > 0 {
			summary += fmt.Sprintf(" and %d more", n)
		}
		summary += "."
	}
	if d.CountsKnown && res.failed == 0 && failing && len(d.Failures) == 0 {
		summary += " No test failed, but the run did: see the tails of the logs in data."
	}
	env := envelope.New("", summary, d)
	if failing || res.failed > 0 || !d.CountsKnown {
		env.Retention.Importance = envelope.High
	}
	if d.CountsKnown {
		env.Fact("job %s tests: %d passed, %d failed, %d skipped (%s)", j.ID, res.passed, res.failed, res.skipped, statusPhrase(j))
	} else {
		env.Fact("job %s tests %s; counts unknown", j.ID, statusPhrase(j))
	}
	if names := failureNames(d.Failures, 10); names != "" {
		env.Fact("failing: %s", clip(names, 600))
	}
	for _, n := range d.Notes {
		env.Fact("%s", clip(n, 300))
	}
	sandboxFact(&env, j)
	env.Omit("data.failures", "data.stdoutTail", "data.stderrTail")
	env.Artifacts = logArtifacts(ws.Store, j)
	return env, nil
}

func failureNames(fs []TestFailure, n int) string {
	var names []string
	for i, f := range fs {
		if i == n {
			break
		}
		switch {
		case f.Name == "":
			names = append(names, "package "+f.Package)
		case f.Package != "":
			names = append(names, fmt.Sprintf("%s (%s)", f.Name, f.Package))
		default:
			names = append(names, f.Name)
		}
	}
	return strings.Join(names, ", ")
}

// tailString keeps the last n bytes of s, cut at a line start when one is
// near, and on a UTF-8 boundary.
func tailString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	cut := len(s) - n
	for cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut++
	}
	t := s[cut:]
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < len(t)/4 {
		t = t[i+1:]
	}
	return t
}
