// certdesk web application: progressive enhancements of every page. Every page works without this script.

/** Copy buttons: data-copy-target names the element whose text is copied. */
function setUpCopyButtons(): void {
  document.querySelectorAll<HTMLButtonElement>('button[data-copy-target]').forEach((button) => {
    const original = button.textContent;
    const originalLabel = button.getAttribute('aria-label');
    button.addEventListener('click', async () => {
      const target = document.getElementById(button.getAttribute('data-copy-target') ?? '');
      if (!target) return;
      const text = target.textContent || '';
      let copied = false;
      try {
        await navigator.clipboard.writeText(text);
        copied = true;
      } catch {
        // Clipboard API refused (insecure context, permissions): select the text so Ctrl+C works.
        const range = document.createRange();
        range.selectNodeContents(target);
        const selection = window.getSelection();
        selection?.removeAllRanges();
        selection?.addRange(range);
        // execCommand is deprecated but the only fallback where the Clipboard API is refused.
        copied = typeof document.execCommand === 'function' && document.execCommand('copy');
      }
      if (copied) {
        const copiedLabel = button.getAttribute('data-copied-label') || original;
        button.textContent = copiedLabel;
        // The accessible name changes too, so screen readers announce the result.
        button.setAttribute('aria-label', copiedLabel ?? '');
        button.classList.add('copied');
        setTimeout(() => {
          button.textContent = original;
          if (originalLabel) button.setAttribute('aria-label', originalLabel);
          button.classList.remove('copied');
        }, 2000);
      }
    });
  });
}

interface ShownTip {
  tip: HTMLElement;
  shape: Element;
  item: HTMLElement | null;
}

/** Annotation shapes: hover or keyboard focus shows the annotation's details next to the shape. */
function setUpAnnotations(): void {
  document.querySelectorAll<HTMLElement>('.overlay-stage').forEach((stage) => {
    let shown: ShownTip | null = null;
    const hide = (): void => {
      if (!shown) return;
      shown.tip.hidden = true;
      shown.shape.classList.remove('active');
      if (shown.item) shown.item.classList.remove('active');
      shown = null;
    };
    const show = (shape: Element): void => {
      hide();
      const index = shape.getAttribute('data-annotation-index');
      const tip = document.getElementById('annotation-tip-' + index);
      if (!tip) return;
      const item = document.getElementById('annotation-' + index);
      const stageBox = stage.getBoundingClientRect();
      const box = shape.getBoundingClientRect();
      tip.hidden = false;
      // Below the shape when there is room, else above; kept inside the stage horizontally.
      const left = Math.max(0, Math.min(box.left - stageBox.left, stageBox.width - tip.offsetWidth));
      let top = box.bottom - stageBox.top + 6;
      if (top + tip.offsetHeight > stageBox.height) top = Math.max(0, box.top - stageBox.top - tip.offsetHeight - 6);
      tip.style.left = left + 'px';
      tip.style.top = top + 'px';
      shape.classList.add('active');
      if (item) item.classList.add('active');
      shown = { tip, shape, item };
    };
    stage.querySelectorAll('.annotation').forEach((shape) => {
      shape.addEventListener('mouseenter', () => show(shape));
      shape.addEventListener('mouseleave', () => {
        if (document.activeElement !== shape) hide();
      });
      shape.addEventListener('focus', () => show(shape));
      shape.addEventListener('blur', hide);
      shape.addEventListener('keydown', (event) => {
        if ((event as KeyboardEvent).key === 'Escape') hide();
      });
    });
  });
}

document.addEventListener('DOMContentLoaded', () => {
  setUpCopyButtons();
  setUpAnnotations();
});
