package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentic-workspace/aw/engine/agent/agenttest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/internal/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

// awBin is the aw binary built once for every black-box test in this package.
var awBin string

func TestMain(m *testing.M) {
	// Re-executed as a scripted model server (durability tests of
	// sub-agents): serve, and never run the tests.
	agenttest.ServeFromEnv()
	// Every aw and git these tests start sees an empty home: the
	// developer's ~/.gitconfig (a core.excludesFile) or approver token
	// cannot change a result.
	_, cleanHome, err := testenv.IsolateProcess()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "aw-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	awBin = filepath.Join(dir, "aw")
	build := exec.Command("go", "build", "-o", awBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building aw:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	cleanHome()
	os.Exit(code)
}

// TestScripts runs the .txtar scripts in testdata/script against the built
// binary: how agents and scripts meet aw.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", filepath.Dir(awBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			// The user's config lives outside the workspace ($WORK), as it
			// must for aw to trust it.
			home := env.WorkDir + "-home"
			if err := os.MkdirAll(filepath.Join(home, ".config"), 0o700); err != nil {
				return err
			}
			env.Defer(func() { os.RemoveAll(home) })
			for k, v := range testenv.Env(home) {
				env.Setenv(k, v)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jq": cmdJQ,
		},
	})
}

// cmdJQ checks one field of the JSON envelope in stdout:
//
//	jq .data.totalLines 3
//	jq .error.code PATH_ESCAPE
//
// The path is dot-separated; numeric elements index arrays. The value is
// compared with the field's JSON text (strings without quotes); Go escapes
// such as \n in the wanted value are decoded.
func cmdJQ(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jq .path value")
	}
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("stdout is not one JSON document: %v", err)
	}
	got, err := lookup(v, args[0])
	if err != nil {
		if neg {
			return
		}
		ts.Fatalf("%s: %v", args[0], err)
	}
	text := ""
	if s, ok := got.(string); ok {
		text = s
	} else {
		raw, _ := json.Marshal(got)
		text = string(raw)
	}
	want := args[1]
	if strings.Contains(want, `\`) {
		if u, err := strconv.Unquote(`"` + want + `"`); err == nil {
			want = u
		}
	}
	if (text == want) == neg {
		ts.Fatalf("%s is %s, want %s%s", args[0], text, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}

func lookup(v any, path string) (any, error) {
	if path == "." {
		return v, nil
	}
	for _, key := range splitPath(path) {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[key]
			if !ok {
				return nil, errors.New("no key " + key)
			}
			v = next
		case []any:
			var i int
			if _, err := fmt.Sscanf(key, "%d", &i); err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("no index %s (length %d)", key, len(x))
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("cannot index %T with %s", v, key)
		}
	}
	return v, nil
}

func splitPath(p string) []string {
	var out []string
	for _, part := range bytes.Split([]byte(p[1:]), []byte(".")) {
		out = append(out, string(part))
	}
	return out
}

// Result is one run of the binary.
type Result struct {
	Code   int
	Stdout []byte
	Stderr []byte
	Env    map[string]any
}

// runAW runs the built binary in dir with args and decodes its envelope.
func runAW(t testing.TB, dir string, stdin []byte, args ...string) Result {
	t.Helper()
	return runAWEnv(t, dir, stdin, nil, args...)
}

// runAWEnv is runAW with extra environment entries (NAME=value).
func runAWEnv(t testing.TB, dir string, stdin []byte, env []string, args ...string) Result {
	t.Helper()
	return runBinEnv(t, awBin, dir, stdin, env, args...)
}

// runBinEnv is runAWEnv through another launcher of aw (one that changes
// what the kernel offers aw, say).
func runBinEnv(t testing.TB, bin, dir string, stdin []byte, env []string, args ...string) Result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".userconfig-none"), "AW_ROOT=", "AW_APPROVER_TOKEN=")
	cmd.Env = append(cmd.Env, env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := Result{Stdout: out.Bytes(), Stderr: errb.Bytes()}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		res.Code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running aw %v: %v", args, err)
	}
	if err := json.Unmarshal(res.Stdout, &res.Env); err != nil {
		t.Fatalf("aw %v: stdout is not one envelope: %v\n%s\nstderr: %s", args, err, res.Stdout, res.Stderr)
	}
	return res
}

// field reads a dotted path from an envelope.
func (r Result) field(t testing.TB, path string) any {
	t.Helper()
	v, err := lookup(any(r.Env), path)
	if err != nil {
		t.Fatalf("%s: %v in %s", path, err, r.Stdout)
	}
	return v
}
