package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// candidates are the names searched on PATH when browser.executable is
// empty, in order.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// Executable finds Chromium: browser.executable (a path, or a name looked
// up on PATH), else the first of candidates on PATH.
func Executable(setting string) (string, error) {
	if setting != "" {
		p, err := exec.LookPath(setting)
		if err != nil {
			return "", envelope.Errorf(envelope.NotFound, "browser.executable is %q, which is not an executable file (%v); a human can fix it with `aw config set browser.executable /usr/bin/chromium`", setting, err).With("setting", "browser.executable")
		}
		return p, nil
	}
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", envelope.Errorf(envelope.NotFound, "no Chromium on PATH (looked for %s); install it (Debian: `apt-get install chromium`) or have a human set `aw config set browser.executable PATH`", strings.Join(candidates, ", ")).With("setting", "browser.executable")
}

// flags are Chromium's command line: headless, without Chromium's own
// sandbox (it cannot start inside aw's OS sandbox, whose namespaces it
// would nest, nor as root in a container; aw's sandbox is the wall around
// the whole browser instead), nothing that phones home (on a closed network those connections fail at every start),
// a DevTools port on loopback chosen by the kernel.
func flags(profile string) []string {
	return []string{
		"--headless",
		"--no-sandbox",
		"--disable-gpu",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--disable-extensions",
		"--disable-domain-reliability",
		"--disable-breakpad",
		"--disable-quic",
		// Back and forward then load through the network (and the guard),
		// and fire the load event chromedp waits for.
		"--disable-features=BackForwardCache",
		"--no-first-run",
		"--no-default-browser-check",
		"--no-pings",
		"--metrics-recording-only",
		"--password-store=basic",
		"--mute-audio",
		"--disable-dev-shm-usage",
		"--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0",
		"--user-data-dir=" + profile,
		"about:blank",
	}
}

// process is a Chromium started for a session.
type process struct {
	pid     int
	start   uint64
	wsURL   string
	port    int
	target  string
	sandbox sandbox.Report
}

// confine wraps Chromium in the OS sandbox every process aw spawns gets
// (commands.sandbox: auto, require, off): the network on (the page's
// requests are judged by the guard through DevTools, and aw reaches
// DevTools on loopback, so the browser shares the host's network), the
// workspace not visible, the session directory its only writable place,
// no real home, private /tmp and /run. It outlives the aw call that
// starts it, in the process group close signals.
func confine(ws *workspace.Workspace, exe, dir string, env []string) ([]string, sandbox.Report, error) {
	argv := append([]string{exe}, flags(filepath.Join(dir, "profile"))...)
	mode := sandbox.Mode(ws.Settings.Commands.Sandbox)
	var p *sandbox.Policy
	if mode != sandbox.Off {
		real, err := filepath.EvalSymlinks(exe)
		if err != nil {
			real = exe
		}
		p, err = sandbox.ForProcess(ws, sandbox.Process{
			Workspace: sandbox.Invisible, Writable: []string{dir}, Readable: []string{filepath.Dir(real)},
			Network: true, Detached: true, Cwd: dir, Env: env,
		})
		if err != nil {
			return nil, sandbox.Report{}, sandbox.Refusal(err, envelope.ToolDisabled, "the browser")
		}
	}
	out, rep, err := sandbox.Wrap(p, mode, argv)
	if err != nil {
		return nil, sandbox.Report{}, sandbox.Refusal(err, envelope.ToolDisabled, "the browser")
	}
	return out, rep, nil
}

// launch starts Chromium in its own session with dir as its home (profile
// and log inside it), inside the OS sandbox (commands.sandbox), and waits
// until its DevTools endpoint answers with a page target. On failure the
// tree is killed and the log's tail explains.
func launch(ctx context.Context, ws *workspace.Workspace, exe, dir string) (*process, error) {
	profile := filepath.Join(dir, "profile")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot create the browser profile %s: %v", profile, err)
	}
	// Only what Chromium needs: the approver token and API keys in aw's
	// environment never reach the browser. HOME is the session's own
	// directory, so whatever Chromium writes there goes when it closes.
	env := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	for _, k := range []string{"LANG", "LC_ALL", "TZ", "TMPDIR", "FONTCONFIG_PATH"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	argv, box, err := confine(ws, exe, dir, env)
	if err != nil {
		return nil, err
	}
	if box.Mechanism != sandbox.None {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }) // /tmp is private
	}
	logPath := filepath.Join(dir, "chromium.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot create the browser log %s: %v", logPath, err)
	}
	defer logf.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = env
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot start %s: %v; check browser.executable", argv[0], err).With("executable", exe)
	}
	exited := make(chan struct{})
	// Reaped while this aw runs (aw mcp lives long); after aw exits the
	// orphan belongs to init.
	go func() { cmd.Wait(); close(exited) }()
	p := &process{pid: cmd.Process.Pid, start: proc.Start(cmd.Process.Pid), sandbox: box}
	fail := func(format string, args ...any) (*process, error) {
		terminate(p.pid, profile, time.Second)
		return nil, envelope.Errorf(envelope.Internal, format+"; Chromium's log ends with: %s", append(args, logTail(logPath))...).With("executable", exe)
	}
	deadline := time.Now().Add(startTimeout)
	portFile := filepath.Join(profile, "DevToolsActivePort")
	for {
		select {
		case <-exited:
			return fail("Chromium (%s) exited while starting", exe)
		case <-ctx.Done():
			return fail("Chromium start cancelled: %v", ctx.Err())
		default:
		}
		if raw, err := os.ReadFile(portFile); err == nil {
			lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
			if len(lines) == 2 {
				if port, err := strconv.Atoi(strings.TrimSpace(lines[0])); err == nil && port > 0 {
					p.port = port
					p.wsURL = fmt.Sprintf("ws://127.0.0.1:%d%s", port, strings.TrimSpace(lines[1]))
					if id, err := pageTarget(ctx, port); err == nil {
						p.target = id
						return p, nil
					}
				}
			}
		}
		if time.Now().After(deadline) {
			return fail("Chromium (%s) did not open its DevTools endpoint within %s", exe, startTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startTimeout bounds Chromium's start on a loaded machine.
const startTimeout = 30 * time.Second

// pageTarget asks the DevTools HTTP endpoint for the first page target.
func pageTarget(ctx context.Context, port int) (string, error) {
	var targets []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if err := devtoolsJSON(ctx, port, "/json/list", &targets); err != nil {
		return "", err
	}
	for _, t := range targets {
		if t.Type == "page" {
			return t.ID, nil
		}
	}
	return "", fmt.Errorf("no page target")
}

// devtoolsJSON GETs one of the DevTools HTTP endpoint's JSON documents.
func devtoolsJSON(ctx context.Context, port int, path string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	resp, err := devtoolsClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// devtoolsClient talks to Chromium's own endpoint on loopback: no proxy
// from the environment, no redirects.
var devtoolsClient = &http.Client{
	Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// logTail is the last few meaningful lines of Chromium's log.
func logTail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log)"
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, "dbus") || strings.TrimSpace(l) == "" {
			continue // a container has no D-Bus; Chromium says so at every start
		}
		lines = append(lines, l)
		if len(lines) > 5 {
			lines = lines[1:]
		}
	}
	if len(lines) == 0 {
		return "(nothing)"
	}
	return envelope.Clip(strings.Join(lines, " | "), 1000)
}
