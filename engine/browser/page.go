package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// tab is one aw call's connection to a session's page: a DevTools websocket
// to the running Chromium, attached to the session's target, detached (the
// tab left open) when the call ends.
type tab struct {
	ctx    context.Context
	cancel func()
	guard  *Guard
	frame  cdp.FrameID // the main frame
	target string
}

// attach connects to sess's Chromium and its page. While attached, every
// request the page makes (documents, subresources, each redirect hop) is
// paused and checked by guard unless private addresses are allowed; a
// JavaScript dialog is dismissed so it cannot wedge the page; downloads
// are refused.
func attach(ctx context.Context, sess *Session, guard *Guard) (*tab, error) {
	actx, acancel := remote.NewAllocator(ctx, sess.WebSocketURL, remote.NoModifyURL, remote.WithDialTimeout(5*time.Second))
	t := &tab{guard: guard, target: sess.TargetID}
	open := func(id string) error {
		tctx, tcancel := chromedp.NewContext(actx, chromedp.WithTargetID(target.ID(id)), chromedp.WithDetachOnCancel())
		if err := chromedp.Do(tctx); err != nil {
			tcancel()
			return err
		}
		t.ctx, t.cancel = tctx, func() { tcancel(); acancel() }
		return nil
	}
	err := open(sess.TargetID)
	if err != nil && ctx.Err() == nil {
		// The page may have closed itself (window.close()): take any
		// other page of the browser.
		if id, perr := pageTarget(ctx, sess.Port); perr == nil && id != sess.TargetID {
			t.target = id
			err = open(id)
		}
	}
	if err != nil {
		acancel()
		return nil, envelope.Errorf(envelope.NetworkError, "cannot reach session %s's Chromium (pid %d) at %s: %v; `aw browser list` shows whether it is alive, `aw browser close %s` ends it", sess.ID, sess.Pid, sess.WebSocketURL, err, sess.ID).With("session_id", sess.ID)
	}
	chromedp.Listen(t.ctx, func(ev any) {
		switch ev := ev.(type) {
		case *fetch.EventRequestPaused:
			go t.decide(ev)
		case *page.EventJavascriptDialogOpening:
			go chromedp.Call(t.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	})
	if !guard.AllowPrivate {
		if _, err := chromedp.Call(t.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
			t.cancel()
			return nil, envelope.Errorf(envelope.Internal, "cannot turn on request checks in session %s: %v; close it and open a new one", sess.ID, err)
		}
	}
	chromedp.CallBrowser(t.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorDeny})
	tree, err := chromedp.Call(t.ctx, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.cancel()
		return nil, envelope.Errorf(envelope.NetworkError, "session %s's page does not answer: %v", sess.ID, err)
	}
	t.frame = tree.FrameTree.Frame.ID
	return t, nil
}

// decide continues or fails one paused request.
func (t *tab) decide(ev *fetch.EventRequestPaused) {
	u, err := url.Parse(ev.Request.URL)
	allowed := err == nil
	if allowed {
		switch strings.ToLower(u.Scheme) {
		case "http", "https", "ws", "wss":
			allowed = t.guard.CheckHost(t.ctx, u.Hostname()) == nil
		case "data", "blob", "about":
		default:
			allowed = false
		}
	}
	if !allowed {
		t.guard.block(ev.Request.URL)
		chromedp.Call(t.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	chromedp.Call(t.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
}

func (t *tab) close() { t.cancel() }

// isolated evaluates expr in a fresh isolated world of the main frame: it
// shares the page's DOM but none of its JavaScript, so a page that
// redefines Array.prototype.map or innerText's callers cannot change what
// aw reads.
func isolated[T any](t *tab, ctx context.Context, expr string) (T, error) {
	var zero T
	w, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: t.frame, WorldName: "aw"})
	if err != nil {
		return zero, err
	}
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, func(p *runtime.EvaluateParams) {
		p.ContextID = w.ExecutionContextID
		p.AwaitPromise = ptr(true)
	}))
}

func ptr[T any](v T) *T { return &v }

// Page is what read returns from a page.
type Page struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"`
	Links []Link `json:"links"`
}

// Link is one anchor, its href resolved by the browser.
type Link struct {
	URL  string `json:"url"`
	Text string `json:"text"`
}

// readJS collects the visible text (innerText honours CSS: hidden nodes
// are left out) and the links in document order.
const readJS = `(() => {
  const body = document.body || document.documentElement;
  const links = [];
  for (const a of document.querySelectorAll('a[href]')) {
    const href = a.href;
    if (!/^https?:/i.test(href)) continue;
    links.push({url: href, text: (a.innerText || a.getAttribute('aria-label') || a.title || '').replace(/\s+/g, ' ').trim()});
    if (links.length >= 5000) break;
  }
  return {url: location.href, title: document.title, text: body ? body.innerText : '', links};
})()`

// read extracts the page.
func (t *tab) read(ctx context.Context) (*Page, error) {
	p, err := isolated[Page](t, ctx, readJS)
	if err != nil {
		return nil, pageErr("read the page", err)
	}
	return &p, nil
}

// where is the page's URL and title after an action.
func (t *tab) where(ctx context.Context) (string, string) {
	var v struct{ URL, Title string }
	v, err := isolated[struct{ URL, Title string }](t, ctx, `({URL: location.href, Title: document.title})`)
	if err != nil {
		return "", ""
	}
	return v.URL, v.Title
}

// settle runs act, and when it starts a navigation of the main frame
// within a short grace, waits for that page's load event (up to limit), so
// the next read sees the new page and not the old one.
func (t *tab) settle(ctx context.Context, limit time.Duration, act func(ctx context.Context) error) error {
	started := make(chan struct{}, 1)
	loaded := make(chan struct{}, 1)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chromedp.Listen(lctx, func(ev any) {
		switch ev := ev.(type) {
		case *page.EventFrameRequestedNavigation:
			if ev.FrameID == t.frame {
				signal(started)
			}
		case *page.EventFrameStartedLoading:
			if ev.FrameID == t.frame {
				signal(started)
			}
		case *page.EventLoadEventFired:
			signal(loaded)
		}
	})
	if err := act(ctx); err != nil {
		return err
	}
	select {
	case <-started:
	case <-time.After(settleGrace):
		return nil
	case <-ctx.Done():
		return nil
	}
	select {
	case <-loaded:
	case <-time.After(limit):
	case <-ctx.Done():
	}
	return nil
}

// settleGrace is how long after a click or a key aw watches for a
// navigation to start.
const settleGrace = 300 * time.Millisecond

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// navigate loads u and waits for it. A document the guard refused (the URL
// itself after a redirect, say) is reported as the refusal it was.
func (t *tab) navigate(ctx context.Context, u string) error {
	err := chromedp.Do(ctx, chromedp.Navigate(u))
	return t.refused(err, "load "+u)
}

// refused turns a navigation error caused by the guard into the guard's
// refusal, naming what was blocked.
func (t *tab) refused(err error, what string) error {
	if err == nil {
		return nil
	}
	if blocked := t.guard.Blocked(); len(blocked) > 0 && strings.Contains(err.Error(), "BLOCKED_BY_CLIENT") {
		return envelope.Errorf(envelope.NetworkError,
			"refused: %s reached %s, a loopback, private, link-local or unspecified address (or a scheme other than http/https); the browser only reaches public addresses unless a human turns on `aw config set research.allowPrivateNetwork true`", what, blocked[0]).
			With("blocked", blocked).With("reason", "private-address").With("setting", "research.allowPrivateNetwork")
	}
	return pageErr(what, err)
}

// pageErr maps chromedp's errors to envelope errors with a next step.
func pageErr(what string, err error) error {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return envelope.Errorf(envelope.Timeout, "timed out trying to %s; raise --timeout, or check the page with `aw browser read`", what)
	}
	var le *chromedp.LoadError
	if errors.As(err, &le) {
		return envelope.Errorf(envelope.NetworkError, "could not %s: %s; check the URL and that the host answers", what, le.ErrorText)
	}
	var ex *chromedp.ExceptionError
	if errors.As(err, &ex) {
		return envelope.Errorf(envelope.InvalidInput, "the page's JavaScript threw while trying to %s: %s", what, exceptionText(ex))
	}
	return envelope.Errorf(envelope.NetworkError, "could not %s: %v", what, err)
}

func exceptionText(ex *chromedp.ExceptionError) string {
	d := ex.ExceptionDetails
	if d == nil {
		return ex.Error()
	}
	if d.Exception != nil && d.Exception.Description != "" {
		return envelope.Clip(d.Exception.Description, 500)
	}
	return envelope.Clip(d.Text, 500)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}

// point is where a click lands.
type point struct {
	X, Y  float64
	Found bool
	Tag   string
	Text  string
}

// locateJS finds the element to click: by CSS selector, or by its visible
// text (exact, case-insensitive match first, then containment) among
// clickable elements, scrolls it into view and returns its centre.
const locateJS = `(async (sel, text) => {
  let el = null;
  if (sel) {
    el = document.querySelector(sel);
  } else {
    const want = text.replace(/\s+/g, ' ').trim().toLowerCase();
    const cands = [...document.querySelectorAll('a, button, input[type=submit], input[type=button], input[type=reset], [role=button], [role=link], [role=tab], [role=menuitem], summary, label, [onclick]')];
    const label = e => ((e.innerText || e.value || e.getAttribute('aria-label') || '') + '').replace(/\s+/g, ' ').trim().toLowerCase();
    const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
    el = cands.find(e => shown(e) && label(e) === want) || cands.find(e => shown(e) && label(e).includes(want)) || null;
  }
  if (!el) return {Found: false};
  el.scrollIntoView({block: 'center', inline: 'center'});
  await new Promise(r => requestAnimationFrame(() => r()));
  const r = el.getBoundingClientRect();
  return {Found: r.width > 0 && r.height > 0, X: r.left + r.width / 2, Y: r.top + r.height / 2, Tag: el.tagName.toLowerCase(), Text: ((el.innerText || el.value || '') + '').trim().slice(0, 200)};
})(%s, %s)`

// locate waits (up to ctx) for the element to exist and have a box.
func (t *tab) locate(ctx context.Context, selector, text string) (point, error) {
	expr := fmt.Sprintf(locateJS, jsString(selector), jsString(text))
	for {
		p, err := isolated[point](t, ctx, expr)
		if err != nil {
			var ex *chromedp.ExceptionError
			if errors.As(err, &ex) && selector != "" {
				return p, envelope.Errorf(envelope.InvalidInput, "%q is not a valid CSS selector: %s", selector, exceptionText(ex)).With("selector", selector)
			}
			if ctx.Err() != nil {
				return p, notFound(selector, text)
			}
			// A navigation destroyed the world mid-call: try again.
		} else if p.Found {
			return p, nil
		}
		select {
		case <-ctx.Done():
			return p, notFound(selector, text)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func notFound(selector, text string) error {
	if selector != "" {
		return envelope.Errorf(envelope.NotFound, "no visible element matches %q; check the selector with `aw browser read`, or wait for it with `--type wait`", selector).With("selector", selector)
	}
	return envelope.Errorf(envelope.NotFound, "no visible link, button or other clickable element shows the text %q; `aw browser read` lists the page's text and links", text).With("text", text)
}
