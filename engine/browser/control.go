package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// control runs one control type on the attached page.
func (t *tab) control(req *ControlRequest, res *PageResult) error {
	limit := 10 * time.Second
	switch req.Type {
	case "navigate", "back", "reload":
		limit = navTimeout
	}
	if req.TimeoutSeconds != nil {
		limit = time.Duration(*req.TimeoutSeconds * float64(time.Second))
	}
	ctx, cancel := context.WithTimeout(t.ctx, limit)
	defer cancel()
	switch req.Type {
	case "navigate":
		return t.navigate(ctx, req.URL)

	case "click", "click_text":
		return t.settle(ctx, limit, func(ctx context.Context) error {
			p, err := t.locate(ctx, req.Selector, req.Text)
			if err != nil {
				return err
			}
			return t.refused(chromedp.Do(ctx, chromedp.MouseClickXY(p.X, p.Y)), "click "+describe(req))
		})

	case "type":
		if _, err := t.locate(ctx, req.Selector, ""); err != nil {
			return err
		}
		steps := []chromedp.Action[chromedp.Void]{chromedp.Focus(chromedp.CSS(req.Selector))}
		if req.Clear {
			// Select the field's content and delete it with a real key, so
			// the page sees the input events a user's deletion makes.
			if _, err := isolated[bool](t, ctx, fmt.Sprintf(selectAllJS, jsString(req.Selector))); err != nil {
				return pageErr(describe(req), err)
			}
			steps = append(steps, chromedp.KeyEvent(kb.Backspace))
		}
		if req.Text != "" {
			steps = append(steps, chromedp.SendKeys(chromedp.CSS(req.Selector), req.Text))
		}
		// Text ending in a newline presses Enter, which may submit a form.
		return t.settle(ctx, limit, func(ctx context.Context) error {
			return t.refused(chromedp.Do(ctx, steps...), describe(req))
		})

	case "press":
		key, _ := keyOf(req.Key)
		return t.settle(ctx, limit, func(ctx context.Context) error {
			if req.Selector != "" {
				if _, err := t.locate(ctx, req.Selector, ""); err != nil {
					return err
				}
				if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(req.Selector))); err != nil {
					return pageErr(describe(req), err)
				}
			}
			return t.refused(chromedp.Do(ctx, chromedp.KeyEvent(key)), describe(req))
		})

	case "wait":
		_, err := t.locate(ctx, req.Selector, "")
		if err != nil && ctx.Err() != nil {
			return envelope.Errorf(envelope.Timeout, "no visible element matched %q within %s; raise --timeout, or check the page with `aw browser read`", req.Selector, limit).With("selector", req.Selector)
		}
		return err

	case "scroll":
		var expr string
		switch {
		case req.By != nil:
			expr = fmt.Sprintf(`(() => { window.scrollBy(0, %d); return window.scrollY; })()`, *req.By)
		case req.To == "" || req.To == "bottom":
			expr = `(() => { const e = document.scrollingElement || document.documentElement; window.scrollTo(0, e.scrollHeight); return window.scrollY; })()`
		case req.To == "top":
			expr = `(() => { window.scrollTo(0, 0); return window.scrollY; })()`
		default:
			if _, err := t.locate(ctx, req.To, ""); err != nil { // scrolls it into view
				return err
			}
			expr = `window.scrollY`
		}
		y, err := isolated[float64](t, ctx, expr)
		if err != nil {
			return pageErr(describe(req), err)
		}
		res.ScrollY = &y
		return nil

	case "back":
		h, err := chromedp.Run(ctx, chromedp.NavigationEntries())
		if err != nil {
			return pageErr("read the history", err)
		}
		if h.CurrentIndex <= 0 {
			return envelope.Errorf(envelope.InvalidInput, "the page has no history to go back to; navigate instead")
		}
		return t.refused(chromedp.Do(ctx, chromedp.NavigateBack()), "go back to "+h.Entries[h.CurrentIndex-1].URL)

	case "reload":
		return t.refused(chromedp.Do(ctx, chromedp.Reload()), "reload the page")

	case "evaluate":
		// The page's own world, as a developer console would run it.
		obj, err := chromedp.Run(ctx, chromedp.Evaluate[*runtime.RemoteObject](req.Expression, chromedp.EvalAwaitPromise, func(p *runtime.EvaluateParams) {
			p.ReturnByValue = ptr(true)
		}))
		if err != nil {
			var ex *chromedp.ExceptionError
			if errors.As(err, &ex) {
				return envelope.Errorf(envelope.InvalidInput, "the expression threw: %s", exceptionText(ex))
			}
			return pageErr("evaluate the expression", err)
		}
		res.Value = evalValue(obj)
		return nil
	}
	return envelope.Errorf(envelope.InvalidInput, "unknown control type %q", req.Type)
}

// evalValue is the JSON value of an evaluation, bounded: a value whose JSON
// exceeds 20,000 characters is returned as its clipped JSON text.
func evalValue(obj *runtime.RemoteObject) any {
	if obj == nil {
		return nil
	}
	if len(obj.Value) == 0 {
		if obj.Description != "" {
			return obj.Description
		}
		return string(obj.Type) // undefined, function, ...
	}
	if len(obj.Value) > 20000 {
		return envelope.Clip(string(obj.Value), 20000)
	}
	var v any
	if err := json.Unmarshal(obj.Value, &v); err != nil {
		return string(obj.Value)
	}
	return v
}

// selectAllJS focuses an element and selects all of its content.
const selectAllJS = `((sel) => {
  const el = document.querySelector(sel);
  if (!el) return false;
  el.focus();
  if (typeof el.select === 'function') { el.select(); return true; }
  const r = document.createRange(); r.selectNodeContents(el);
  const s = getSelection(); s.removeAllRanges(); s.addRange(r);
  return true;
})(%s)`

// keys maps key names to chromedp's key runes.
var keys = map[string]string{
	"enter": kb.Enter, "return": kb.Enter, "tab": kb.Tab, "escape": kb.Escape, "esc": kb.Escape,
	"backspace": kb.Backspace, "delete": kb.Delete, "arrowup": kb.ArrowUp, "arrowdown": kb.ArrowDown,
	"arrowleft": kb.ArrowLeft, "arrowright": kb.ArrowRight, "up": kb.ArrowUp, "down": kb.ArrowDown,
	"left": kb.ArrowLeft, "right": kb.ArrowRight, "home": kb.Home, "end": kb.End,
	"pageup": kb.PageUp, "pagedown": kb.PageDown, "space": " ",
}

// keyOf reads a key name (any case) or a single character.
func keyOf(name string) (string, bool) {
	if k, ok := keys[strings.ToLower(name)]; ok {
		return k, true
	}
	if r := []rune(name); len(r) == 1 {
		return name, true
	}
	return "", false
}
