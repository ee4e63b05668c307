package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-dap"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// directStop is the peer of aw debug launch: the same adapter driven
// straight over DAP (no aw, no broker, no sandbox) from start to the first
// stop at file:line, then killed. It returns how long that took.
func directStop(b *testing.B, dir string, argv []string, socket bool, launch map[string]any, file string, line int) time.Duration {
	b.Helper()
	start := time.Now()
	sock := filepath.Join(dir, ".agentic", "peer.sock")
	os.Remove(sock)
	if socket {
		argv = append(argv, "--listen=unix:"+sock)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var r io.Reader
	var w io.Writer
	if socket {
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		var conn net.Conn
		var err error
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if conn, err = net.Dial("unix", sock); err == nil || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		r, w = conn, conn
	} else {
		w, _ = cmd.StdinPipe()
		r, _ = cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	seq := 0
	send := func(command string, args any) {
		seq++
		raw, _ := json.Marshal(map[string]any{"seq": seq, "type": "request", "command": command, "arguments": args})
		dap.WriteBaseMessage(w, raw)
	}
	br := bufio.NewReader(r)
	next := func() map[string]any {
		raw, err := dap.ReadBaseMessage(br)
		if err != nil {
			b.Fatalf("the adapter ended: %v", err)
		}
		var m map[string]any
		json.Unmarshal(raw, &m)
		return m
	}
	send("initialize", map[string]any{"clientID": "peer", "adapterID": "peer", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"})
	send("launch", launch)
	for m := next(); m["event"] != "initialized"; m = next() {
	}
	send("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": []any{map[string]any{"line": line}}})
	send("configurationDone", nil)
	for m := next(); m["event"] != "stopped"; m = next() {
		if m["event"] == "terminated" {
			b.Fatal("the program ended before its breakpoint")
		}
	}
	return time.Since(start)
}

// BenchmarkDebugFirstStop: launch to the first breakpoint with aw (as a
// CLI process, the broker warm after the first launch) against the same
// adapter driven directly, alternating, for delve on a Go module and
// debugpy on a Python file. cold-ms is aw's first launch (the broker
// starts; delve builds with a warm build cache).
//
//	go test ./cmd/aw -run '^$' -bench BenchmarkDebugFirstStop -benchtime 5x
func BenchmarkDebugFirstStop(b *testing.B) {
	b.Run("delve", func(b *testing.B) {
		needDlv(b)
		dir := goDebugWorkspace(b, "")
		dlv, _ := exec.LookPath("dlv")
		launch := map[string]any{"mode": "debug", "program": dir, "output": filepath.Join(dir, ".agentic", "peer.bin"), "cwd": dir}
		benchFirstStop(b, dir, nil, func() time.Duration {
			return directStop(b, dir, []string{dlv, "dap"}, true, launch, filepath.Join(dir, "main.go"), 6)
		}, "main.go", "6", ".")
	})
	b.Run("debugpy", func(b *testing.B) {
		path := debugpyPath(b)
		dir := debugWorkspace(b, `{"permissionMode": 2, "commands": {"allow": ["python3"]}}`, map[string]string{
			"requirements.txt": "", "app.py": "def add(a, b):\n    total = a + b\n    return total\n\nprint(add(2, 3))\n"})
		py := "/usr/bin/python3"
		if p, err := exec.LookPath("python3"); err == nil && exec.Command(p, "-c", "import debugpy").Run() == nil {
			py = p
		}
		launch := map[string]any{"program": filepath.Join(dir, "app.py"), "cwd": dir, "console": "internalConsole", "python": []string{py}}
		benchFirstStop(b, dir, []string{"PATH=" + path}, func() time.Duration {
			return directStop(b, dir, []string{py, "-m", "debugpy.adapter"}, false, launch, filepath.Join(dir, "app.py"), 3)
		}, "app.py", "3", "app.py")
	})
	b.Run("lldb", func(b *testing.B) {
		cc := testenv.Need(b, "cc", "scripts/test-deps installs it: apt-get install gcc")
		adapter, err := exec.LookPath("lldb-dap-19")
		if err != nil {
			adapter = testenv.Need(b, "lldb-dap", "scripts/test-deps installs it: apt-get install lldb-19")
		}
		dir := debugWorkspace(b, `{"permissionMode": 2, "commands": {"allow": ["lldb-dap", "lldb-dap-19", "./hello"]}}`,
			map[string]string{"CMakeLists.txt": "project(hello C)\n", "hello.c": debugCMain})
		build := exec.Command(cc, "-g", "-O0", "-o", "hello", "hello.c")
		build.Dir = dir
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("cc: %v\n%s", err, out)
		}
		launch := map[string]any{"program": filepath.Join(dir, "hello"), "cwd": dir}
		benchFirstStop(b, dir, nil, func() time.Duration {
			return directStop(b, dir, []string{adapter}, false, launch, filepath.Join(dir, "hello.c"), 4)
		}, "hello.c", "4", "hello")
	})
}

func benchFirstStop(b *testing.B, dir string, env []string, peer func() time.Duration, file, line, program string) {
	run := func(args ...string) Result {
		r := runAWEnv(b, dir, nil, append(cacheEnv(), env...), args...)
		if r.Code != 0 {
			b.Fatalf("aw %v: %s", args, r.Stdout)
		}
		return r
	}
	launch := func() time.Duration {
		s := time.Now()
		r := run("debug", "launch", "--wait", "120", program)
		d := time.Since(s)
		if r.field(b, ".data.session.state") != "stopped" {
			b.Fatalf("launch did not stop: %s", r.Stdout)
		}
		run("debug", "terminate")
		return d
	}
	run("debug", "breakpoints", file, line)
	peer() // warms the build cache the peer and aw share
	cold := launch()
	var aw, direct []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		aw = append(aw, launch())
		direct = append(direct, peer())
	}
	b.StopTimer()
	reportMedian(b, "aw-warm-ms", aw)
	reportMedian(b, "direct-ms", direct)
	b.ReportMetric(float64(median(aw))/float64(median(direct)), "ratio")
	b.ReportMetric(float64(cold)/float64(time.Millisecond), "aw-cold-ms")
}

// BenchmarkEvalRoundTrip: `aw eval '1+1'` as a CLI process with the
// interpreter warm (target: < 100 ms) against `python3 -c 'print(1+1)'`,
// alternating.
//
//	go test ./cmd/aw -run '^$' -bench BenchmarkEvalRoundTrip -benchtime 20x
func BenchmarkEvalRoundTrip(b *testing.B) {
	path := evalPath(b)
	dir := debugWorkspace(b, `{"permissionMode": 2, "commands": {"allow": ["python3"]}}`, map[string]string{})
	env := []string{"PATH=" + path}
	cell := func() time.Duration {
		s := time.Now()
		r := runAWEnv(b, dir, nil, env, "eval", "1+1", "--description", "a trivial cell")
		d := time.Since(s)
		if r.Code != 0 || r.field(b, ".data.result.data") != "2" {
			b.Fatalf("eval 1+1: %s", r.Stdout)
		}
		return d
	}
	py := filepath.Join(filepath.SplitList(path)[0], "python3") // the interpreter aw runs
	s := time.Now()
	cell()
	cold := time.Since(s)
	var aw, direct []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		aw = append(aw, cell())
		s := time.Now()
		if out, err := exec.Command(py, "-c", "print(1+1)").Output(); err != nil || string(out) != "2\n" {
			b.Fatalf("python3 -c: %q %v", out, err)
		}
		direct = append(direct, time.Since(s))
	}
	b.StopTimer()
	reportMedian(b, "aw-warm-ms", aw)
	reportMedian(b, "python3-c-ms", direct)
	b.ReportMetric(float64(median(aw))/float64(median(direct)), "ratio")
	b.ReportMetric(float64(cold)/float64(time.Millisecond), "aw-cold-ms")
}
