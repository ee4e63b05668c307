package lsp

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// checkCall is "lsp.check": run the server's project checker.
type checkCall struct {
	target
}

// checkResult is the checker's findings by absolute path.
type checkResult struct {
	Files    map[string][]Diagnostic `json:"files"`
	Command  []string                `json:"command"`
	ExitCode int                     `json:"exitCode"`
	Unparsed []string                `json:"unparsed,omitempty"` // lines that named no position
}

// checkLine forms: go vet and compilers (file:line:col: message), pyright
// (file:line:col - error: message), tsc (file(line,col): error TS1: message).
// Compiled on first use: every aw process links this package.
var checkLine = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`^\s*(\S[^:]*?):(\d+):(\d+) - (error|warning|information): (.*)$`),
		regexp.MustCompile(`^(\S[^(]*?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$`),
		regexp.MustCompile(`^(?:vet: )?(\S[^:]*?):(\d+):(\d+): (.*)$`),
	}
})

// check runs the project checker in the server's root, inside the same
// sandbox as the server, and parses what it prints.
func check(ctx context.Context, ws *workspace.Workspace, t target) (*checkResult, error) {
	if len(t.Server.Checker) == 0 {
		return nil, envelope.Errorf(envelope.NotFound, "%s has no project checker (lsp.servers checker): ask for one file's diagnostics instead", t.Server.Name)
	}
	argv, env, _, err := confine(ws, t.Server.Name, t.Server.Checker[0], t.Server.Checker[1:], t.Root)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = t.Root, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	serverAttr(cmd)
	err = cmd.Run()
	res := &checkResult{Files: map[string][]Diagnostic{}, Command: t.Server.Checker}
	if ee, ok := err.(*exec.ExitError); ok {
		res.ExitCode = ee.ExitCode()
	} else if err != nil {
		return nil, envelope.Errorf(envelope.Internal, "the checker %s failed to run: %v", strings.Join(t.Server.Checker, " "), err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		d, path, ok := parseCheck(line)
		if !ok {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") && len(res.Unparsed) < 20 {
				res.Unparsed = append(res.Unparsed, clip(l, 300))
			}
			continue
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(t.Root, path)
		}
		res.Files[filepath.Clean(path)] = append(res.Files[filepath.Clean(path)], d)
	}
	return res, nil
}

func parseCheck(line string) (Diagnostic, string, bool) {
	for i, re := range checkLine() {
		m := re.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		ln, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		d := Diagnostic{Range: Range{Start: Position{Line: ln - 1, Character: col - 1}}, Severity: 1}
		switch i {
		case 0:
			d.Severity = map[string]int{"error": 1, "warning": 2, "information": 3}[m[4]]
			d.Message, d.Source = m[5], "checker"
		case 1:
			d.Severity = map[string]int{"error": 1, "warning": 2}[m[4]]
			d.Code, d.Message, d.Source = []byte(strconv.Quote(m[5])), m[6], "checker"
		default:
			d.Message, d.Source = m[4], "checker"
		}
		return d, m[1], true
	}
	return Diagnostic{}, "", false
}
