package commands

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/browser"
	"github.com/agentic-workspace/aw/engine/dispatch"
)

func (a *app) browserCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "browser",
		Short: dispatch.Browser.Short,
		Long: `Headless Chromium sessions that outlive the aw call that opened them
(browser.enabled). open starts Chromium (browser.executable, else chromium,
chromium-browser or google-chrome on PATH) in its own process group with a
fresh profile under .agentic/browser/<session_id>/; every later call
reconnects through the DevTools websocket recorded in
.agentic/browser/<session_id>.json.

  aw browser open https://example.com/
  aw browser read SESSION
  aw browser control SESSION --type click 'button#more'
  aw browser control SESSION --type click_text 'Next page'
  aw browser control SESSION --type type 'input[name=q]' 'search words'
  aw browser control SESSION --type press Enter
  aw browser control SESSION --type wait '#results' --timeout 20
  aw browser control SESSION --type scroll --to bottom   (or top, a selector, --by PX)
  aw browser control SESSION --type navigate https://example.com/other
  aw browser control SESSION --type back | reload
  aw browser control SESSION --type evaluate 'document.title'   (browser.allowEvaluate)
  aw browser list
  aw browser close SESSION

open with a URL and control are gated as web egress (kind "browser"), the
same decision as aw research fetch: Manual stages them, Plan needs an
approved plan, Auto runs them. open without a URL, read, list and close are
not gated. Only http and https URLs are visited, and, unless
research.allowPrivateNetwork is on, never loopback, private, link-local or
unspecified addresses: the URL's resolved address is checked before
navigating, and while an aw call is attached every request of the page
(subresources, redirect hops) is checked too. Between calls nothing watches
the page: scripts a page runs on its own timers are not checked then.
A session closes by itself after browser.idleSeconds unused (30 minutes
by default), or when the workspace or its files are removed; opening more
than browser.maxSessions (4) closes the one unused the longest.`,
	}
	open := a.verb(dispatch.Browser, "open", "open [URL]", nil, func(req any, args []string) {
		if len(args) > 0 {
			req.(*browser.OpenRequest).URL = args[0]
		}
	})
	sessionArg := func(req any, args []string) {
		if len(args) > 0 {
			req.(*browser.SessionRequest).SessionID = args[0]
		}
	}
	read := a.verb(dispatch.Browser, "read", "read SESSION", nil, sessionArg)
	closeCmd := a.verb(dispatch.Browser, "close", "close SESSION", nil, sessionArg)
	list := a.verb(dispatch.Browser, "list", "list", nil, nil)
	control := a.verb(dispatch.Browser, "control", "control SESSION --type TYPE [ARG...]", func(f *pflag.FlagSet, req any) {
		r := req.(*browser.ControlRequest)
		f.StringVar(&r.Type, "type", "", "the control type: "+strings.Join(browser.Types, ", "))
		f.StringVar(&r.URL, "url", "", "navigate: the URL (or the first argument)")
		f.StringVar(&r.Selector, "selector", "", "click, type, wait, press: a CSS selector (or the first argument)")
		f.StringVar(&r.Text, "text", "", "click_text: the element's text; type: the text to type")
		f.StringVar(&r.Key, "key", "", "press: Enter, Tab, Escape, Backspace, Delete, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, Space, or one character")
		f.BoolVar(&r.Clear, "clear", false, "type: empty the field first")
		f.StringVar(&r.To, "to", "", "scroll: bottom (default), top, or a CSS selector")
		f.Var(optionalInt{&r.By}, "by", "scroll: by this many pixels (negative: up)")
		f.StringVar(&r.Expression, "expression", "", "evaluate: the JavaScript expression (needs browser.allowEvaluate)")
		f.Var(optionalFloat{&r.TimeoutSeconds}, "timeout", "seconds this control may take (default 10, 30 for navigate/back/reload; at most 120)")
	}, func(req any, args []string) {
		r := req.(*browser.ControlRequest)
		if len(args) == 0 {
			return
		}
		r.SessionID, args = args[0], args[1:]
		// Positional arguments fill the type's fields in order.
		var fields []*string
		switch r.Type {
		case "navigate":
			fields = []*string{&r.URL}
		case "click", "wait":
			fields = []*string{&r.Selector}
		case "click_text":
			fields = []*string{&r.Text}
		case "type":
			fields = []*string{&r.Selector, &r.Text}
		case "press":
			fields = []*string{&r.Key}
		case "scroll":
			fields = []*string{&r.To}
		case "evaluate":
			fields = []*string{&r.Expression}
		}
		for i, v := range args {
			if i < len(fields) {
				*fields[i] = v
			}
		}
	})
	open.Args, read.Args, closeCmd.Args, list.Args = cobra.MaximumNArgs(1), cobra.MaximumNArgs(1), cobra.MaximumNArgs(1), cobra.NoArgs
	control.Args = cobra.MaximumNArgs(3)
	cmd.AddCommand(open, read, control, list, closeCmd, a.watchCmd())
	return cmd
}

// watchCmd is a session's watchdog, which open starts beside Chromium.
// Hidden: nobody else calls it, and all it can do is end a session that
// is idle or whose files are gone.
func (a *app) watchCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "watch SESSION PID START",
		Hidden: true,
		Args:   cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := a.root
			if root == "" {
				root = a.io.Dir
			}
			pid, _ := strconv.Atoi(args[1])
			start, _ := strconv.ParseUint(args[2], 10, 64)
			if err := browser.Watch(root, args[0], pid, start); err != nil {
				a.exitCode = ExitFailed
			}
			return nil
		},
	}
}
