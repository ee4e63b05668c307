package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// InitRequest takes no arguments.
type InitRequest struct{}

// projectTools maps a file at the root to the executables its project uses:
// what `aw init` proposes for commands.allow.
var projectTools = []struct {
	file  string
	tools []string
}{
	{"go.mod", []string{"go", "gofmt"}},
	{"package.json", []string{"node", "npm", "npx"}},
	{"pnpm-lock.yaml", []string{"pnpm"}},
	{"yarn.lock", []string{"yarn"}},
	{"bun.lockb", []string{"bun"}},
	{"Makefile", []string{"make"}},
	{"Cargo.toml", []string{"cargo", "rustc"}},
	{"pyproject.toml", []string{"python3", "pip", "pytest"}},
	{"requirements.txt", []string{"python3", "pip", "pytest"}},
	{"pytest.ini", []string{"python3", "pytest"}},
	{"setup.cfg", []string{"python3", "pip", "pytest"}},
	{"tox.ini", []string{"python3", "pytest"}},
	{"Gemfile", []string{"ruby", "bundle", "rake"}},
	{"pom.xml", []string{"mvn", "java"}},
	{"build.gradle", []string{"gradle", "java"}},
	{"CMakeLists.txt", []string{"cmake", "make"}},
	{"deno.json", []string{"deno"}},
}

// Init creates .agentic/ with a commented default config and keeps it out
// of git (.git/info/exclude). It proposes commands.allow and
// commands.testCommand from the files the project has; the proposals are
// written as settings only for a human caller (a terminal or the approver
// token), else left as comments, because an agent must not widen its own
// command policy.
func Init(ctx context.Context, ws *workspace.Workspace, req *InitRequest) (envelope.Envelope, error) {
	unlock, err := ws.Store.Lock()
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer unlock()
	proposal := proposeAllow(ws.Root)
	tests := workspace.DetectTestCommands(ws.Root)
	human := gate.RequireHuman(ws, "`aw init` writing commands.allow") == nil
	data := map[string]any{"path": ".agentic", "config": ".agentic/config.json", "proposedAllow": proposal,
		"testCommandCandidates": tests}
	testCmd := ""
	if len(tests) > 0 {
		testCmd = tests[0].Command
		data["proposedTestCommand"], data["testCommandReason"] = testCmd, tests[0].Reason
	}
	var done []string
	created := false
	cfg := ws.StatePath("config.json")
	if _, err := os.Stat(cfg); errors.Is(err, fs.ErrNotExist) {
		set := map[string]any{}
		if human && len(proposal) > 0 {
			set["commands.allow"] = proposal
		}
		if human && testCmd != "" {
			set["commands.testCommand"] = testCmd
		}
		text := Template(set)
		if !human {
			var lines []string
			if len(proposal) > 0 {
				lines = append(lines, fmt.Sprintf("//   aw config set commands.allow '%s'", jsonList(proposal)))
			}
			if testCmd != "" {
				lines = append(lines, fmt.Sprintf("//   aw config set commands.testCommand '%s'", testCmd))
			}
			if len(lines) > 0 {
				text = bytes.Replace(text, []byte("\n{\n"), []byte(
					"\n// Proposed from the project's files (apply it in your terminal):\n"+strings.Join(lines, "\n")+"\n{\n"), 1)
			}
		}
		if err := store.WriteFile(cfg, text, 0o644); err != nil {
			return envelope.Envelope{}, err
		}
		created = true
		done = append(done, "created .agentic/config.json")
		data["allowApplied"] = human && len(proposal) > 0
		data["testCommandApplied"] = human && testCmd != ""
	} else {
		done = append(done, ".agentic/config.json already exists (left as it is)")
		data["testCommandApplied"] = false
	}
	excluded, err := ExcludeFromGit(ws.Root)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if excluded != "" {
		done = append(done, "added .agentic/ to "+excluded)
		data["gitExclude"] = excluded
	}
	summary := "Initialised .agentic/: " + strings.Join(done, "; ") + "."
	if len(proposal) > 0 && data["allowApplied"] != true {
		summary += fmt.Sprintf(" Proposed commands.allow %s: a human applies it with `aw config set commands.allow '%s'`.", jsonList(proposal), jsonList(proposal))
	}
	testFact := ""
	switch current := ws.Settings.Commands.TestCommand; {
	case !created && current != "" && testCmd != "" && testCmd != current:
		testFact = fmt.Sprintf("commands.testCommand is already %q (the project suggests %q: %s)", current, testCmd, tests[0].Reason)
	case !created && current != "":
		testFact = fmt.Sprintf("commands.testCommand is already %q", current)
	case testCmd == "":
		testFact = "no test command proposed: no go.mod, package.json with a test script, Cargo.toml, pytest.ini, pyproject.toml, setup.cfg, tox.ini or Makefile with a test target at the root; a human sets one with `aw config set commands.testCommand '...'`"
	case data["testCommandApplied"] == true:
		testFact = fmt.Sprintf("set commands.testCommand %q (%s), which `aw command test` runs", testCmd, tests[0].Reason)
	default:
		testFact = fmt.Sprintf("proposed commands.testCommand %q (%s): a human applies it with `aw config set commands.testCommand '%s'`", testCmd, tests[0].Reason, testCmd)
	}
	summary += " Test command: " + testFact + "."
	env := envelope.New("", summary, data)
	for _, d := range done {
		env.Fact("%s", d)
	}
	env.Fact("%s", testFact)
	return env, nil
}

func proposeAllow(root string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, p := range projectTools {
		if _, err := os.Stat(filepath.Join(root, p.file)); err != nil {
			continue
		}
		for _, t := range p.tools {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out
}

func jsonList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// ExcludeFromGit adds ".agentic/" to the repository's info/exclude when the
// root is a git work tree, returning the file it changed ("" if none), so
// aw's own state never shows as untracked. `aw init` and `aw vcs init` both
// call it. A .git file (worktree or submodule) is followed to its git dir
// and, for a linked worktree, to the common dir where info/exclude lives.
func ExcludeFromGit(root string) (string, error) {
	gitDir := filepath.Join(root, ".git")
	fi, err := os.Stat(gitDir)
	if err != nil {
		return "", nil
	}
	if !fi.IsDir() {
		raw, err := os.ReadFile(gitDir)
		if err != nil {
			return "", nil
		}
		target, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "gitdir:")
		if !ok {
			return "", nil
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(root, target)
		}
		gitDir = target
		if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			c := strings.TrimSpace(string(common))
			if !filepath.IsAbs(c) {
				c = filepath.Join(gitDir, c)
			}
			gitDir = c
		}
	}
	exclude := filepath.Join(gitDir, "info", "exclude")
	old, err := os.ReadFile(exclude)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", envelope.Errorf(envelope.Internal, "cannot read %s: %v", exclude, err)
	}
	for _, line := range strings.Split(string(old), "\n") {
		switch strings.TrimSpace(line) {
		case ".agentic", ".agentic/", "/.agentic", "/.agentic/":
			return "", nil
		}
	}
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += "# aw workspace state\n/.agentic/\n"
	if err := store.WriteFile(exclude, []byte(text), 0o644); err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, exclude)
	if err != nil || strings.HasPrefix(rel, "..") {
		return exclude, nil
	}
	return filepath.ToSlash(rel), nil
}
