// The review page's annotation editor (docs/review.md "The annotation editor"). Progressive enhancement:
// the server renders the preview with its annotations; with a claim of the reader's, this script replaces
// it with an editor over the same data (`data-editor-state` on the `data-review-root` element):
// - the preview large, each PSD layer stacked over it and switchable;
// - an SVG overlay (viewBox 0 0 1 1 stretched over the picture) with tools to add, move, resize and delete
//   RECTANGLE and POLYGON annotations; bodies, needs_remediation, ai_likelihood; the order's remediation
//   and confidence; Save PUTs them to data-edits-url with the CSRF token (X-CSRF-Token);
// - keyboard: every control is a button, input or focusable shape; shortcuts (listed on the page) for the
//   tools, the selection and the decisions. A decision shortcut only moves focus (to the Note while it is
//   empty, else to the button): nothing is decided on a single key press.
// Text typed by anyone is only ever set with textContent or .value.
import {
  isUsable,
  moveVertex,
  pointsOf,
  polygonGeometry,
  rectangleGeometry,
  resizeRectangle,
  round6,
  translate,
  type Annotation,
  type Geometry,
  type Point,
  type ShapeType,
} from './lib/annotation-geometry.js';
import { el, isTyping, svg, uuid } from './lib/dom.js';

interface EditorState {
  preview_url: string | null;
  preview_alt: string;
  layers: Array<{ name: string; url: string }>;
  annotations: Annotation[];
  remediation: number;
  confidence: number;
}

type Tool = 'select' | 'rectangle' | 'polygon';

/** Keyboard steps: an arrow moves the selection by 1% of the picture, with Shift by 5%. */
const STEP = 0.01;
const BIG_STEP = 0.05;

/** The shortcuts listed on the page: keys, and the name of their description in the page's messages. */
export const SHORTCUTS: ReadonlyArray<[keys: string, message: string]> = [
  ['V', 'shortcut_select'],
  ['R', 'shortcut_rectangle'],
  ['P', 'shortcut_polygon'],
  ['Tab / Shift+Tab', 'shortcut_tab'],
  ['↑ ↓ ← →', 'shortcut_arrows'],
  ['Delete / Backspace', 'shortcut_delete'],
  ['Esc', 'shortcut_escape'],
  ['Ctrl+S (⌘S)', 'shortcut_save'],
  ['N', 'shortcut_note'],
  ['C / F / E / X', 'shortcut_decisions'],
];

/**
 * The editor's texts in the page's language: the server renders them from the i18n catalogues
 * (`web.review.editor.*`) into `data-editor-messages` (JSON, read with JSON.parse). A missing text shows its
 * name rather than nothing.
 */
let messages: Record<string, string> = {};

function m(name: string, vars: Record<string, string | number> = {}): string {
  const template = messages[name] ?? name;
  return template.replace(/\{([a-z_]+)\}/g, (all, key: string) => (key in vars ? String(vars[key]) : all));
}

const DECISION_KEYS: Record<string, string> = { c: 'certify', f: 'record_findings', e: 'ask_for_evidence', x: 'refuse' };

function start(): void {
  const root = document.querySelector<HTMLElement>('[data-review-root][data-claim-id][data-editor-state]');
  const mount = document.querySelector<HTMLElement>('[data-review-editor]');
  if (!root || !mount) return;
  const state = JSON.parse(root.dataset.editorState ?? '{}') as EditorState;
  messages = JSON.parse(root.dataset.editorMessages ?? '{}') as Record<string, string>;
  if (!state.preview_url) return;
  new Editor(root, mount, state);
}

class Editor {
  private annotations: Annotation[];
  private selected = -1;
  private tool: Tool = 'select';
  private drawing: Point[] = [];
  private dirty = false;
  private drag: null | { kind: 'move' | 'corner' | 'vertex' | 'new-rect'; index: number; handle: number; from: Point; start: Geometry | null } = null;

  private readonly stage: HTMLDivElement;
  private readonly overlay: SVGSVGElement;
  private readonly toolButtons = new Map<Tool, HTMLButtonElement>();
  private readonly list: HTMLOListElement;
  private readonly details: HTMLDivElement;
  private readonly status: HTMLParagraphElement;
  private readonly remediation: HTMLSelectElement;
  private readonly confidence: HTMLInputElement;
  private readonly saveButton: HTMLButtonElement;
  private readonly deleteButton: HTMLButtonElement;

  constructor(
    private readonly root: HTMLElement,
    mount: HTMLElement,
    state: EditorState,
  ) {
    this.annotations = structuredClone(state.annotations ?? []);

    // Toolbar.
    const toolbar = el('div', { class: 'editor-toolbar', role: 'toolbar', 'aria-label': m('tools') });
    const tools: Array<[Tool, string, string]> = [
      ['select', m('tool_select'), 'V'],
      ['rectangle', m('tool_rectangle'), 'R'],
      ['polygon', m('tool_polygon'), 'P'],
    ];
    for (const [tool, label, key] of tools) {
      const b = el('button', { type: 'button', 'aria-pressed': 'false', 'aria-keyshortcuts': key, 'data-tool': tool }, [label, ' ', el('kbd', {}, [key])]);
      b.addEventListener('click', () => this.setTool(tool));
      this.toolButtons.set(tool, b);
      toolbar.append(b);
    }
    this.deleteButton = el('button', { type: 'button', 'aria-keyshortcuts': 'Delete', 'data-action': 'delete' }, [`${m('delete_shape')} `, el('kbd', {}, ['Del'])]);
    this.deleteButton.addEventListener('click', () => this.deleteSelected());
    this.saveButton = el('button', { type: 'button', class: 'primary', 'aria-keyshortcuts': 'Control+S', 'data-action': 'save' }, [`${m('save')} `, el('kbd', {}, ['Ctrl+S'])]);
    this.saveButton.addEventListener('click', () => void this.save());
    toolbar.append(this.deleteButton, this.saveButton);
    this.status = el('p', { class: 'editor-status', role: 'status', 'aria-live': 'polite', 'data-editor-status': '' });

    // Stage: the preview, the layers over it, the shapes over everything.
    this.stage = el('div', { class: 'editor-stage' });
    const image = el('img', { src: state.preview_url ?? '', alt: state.preview_alt, class: 'editor-image', draggable: 'false' });
    this.stage.append(image);
    const layerBoxes = el('fieldset', { class: 'editor-layers' }, [el('legend', {}, [m('layers')])]);
    const previewToggle = this.layerToggle(m('preview'), true, (on) => (image.style.visibility = on ? 'visible' : 'hidden'));
    layerBoxes.append(previewToggle);
    for (const layer of state.layers ?? []) {
      const img = el('img', { src: layer.url, alt: m('layer_alt', { name: layer.name }), class: 'editor-layer', draggable: 'false', 'data-layer-image': layer.name });
      img.hidden = true;
      this.stage.append(img);
      layerBoxes.append(this.layerToggle(layer.name, false, (on) => (img.hidden = !on)));
    }
    if (!(state.layers ?? []).length) layerBoxes.append(el('p', { class: 'muted' }, [m('no_layers')]));
    this.overlay = svg('svg', { class: 'editor-shapes', viewBox: '0 0 1 1', preserveAspectRatio: 'none', role: 'group', 'aria-label': m('drawing_area'), 'data-editor-overlay': '' });
    this.stage.append(this.overlay);

    // The selection's properties, the list, the order's fields.
    this.details = el('div', { class: 'editor-details', 'data-editor-details': '' });
    this.list = el('ol', { class: 'editor-list', 'aria-label': m('annotations') });
    this.remediation = el('select', { id: 'editor-remediation' });
    for (const [value, label] of [['0', m('remediation_unset')], ['0.5', m('remediation_not_recommended')], ['1', m('remediation_recommended')]] as const) {
      const option = el('option', { value }, [label]);
      this.remediation.append(option);
    }
    this.remediation.value = String(state.remediation === 0.5 || state.remediation === 1 ? state.remediation : 0);
    this.confidence = el('input', { id: 'editor-confidence', type: 'number', min: '0', max: '1', step: '0.01' });
    this.confidence.value = String(state.confidence ?? 0);
    this.remediation.addEventListener('change', () => this.touch());
    this.confidence.addEventListener('input', () => this.touch());
    const orderFields = el('fieldset', { class: 'editor-order' }, [
      el('legend', {}, [m('order')]),
      el('label', { for: 'editor-remediation' }, [m('remediation')]),
      this.remediation,
      el('label', { for: 'editor-confidence' }, [m('confidence')]),
      this.confidence,
    ]);

    const shortcuts = el('details', { class: 'editor-shortcuts', open: '' }, [el('summary', {}, [m('shortcuts')])]);
    const table = el('dl', { class: 'compact', 'data-shortcuts': '' });
    for (const [keys, what] of SHORTCUTS) table.append(el('dt', {}, [el('kbd', {}, [keys])]), el('dd', {}, [m(what)]));
    shortcuts.append(table);

    const editor = el('div', { class: 'review-editor', 'data-editor-ready': '' }, [
      toolbar,
      this.status,
      el('div', { class: 'editor-grid' }, [
        this.stage,
        el('div', { class: 'editor-side' }, [layerBoxes, this.details, el('h3', {}, [m('annotations')]), this.list, orderFields]),
      ]),
      shortcuts,
    ]);
    mount.replaceChildren(editor);
    // The server's read-only list and overlay repeat what the editor shows: hide them while it runs.
    document.querySelector<HTMLElement>('[data-static-annotations]')?.setAttribute('hidden', '');

    this.bindPointer();
    document.addEventListener('keydown', (e) => this.onKey(e));
    window.addEventListener('beforeunload', (e) => {
      if (this.dirty && !this.root.hasAttribute('data-deciding')) e.preventDefault();
    });
    document.querySelector('[data-decision-form]')?.addEventListener('submit', () => this.root.setAttribute('data-deciding', ''));
    this.setTool('select');
    this.render();
  }

  private layerToggle(name: string, checked: boolean, onChange: (on: boolean) => void): HTMLLabelElement {
    const box = el('input', { type: 'checkbox', 'data-layer-toggle': name });
    box.checked = checked;
    box.addEventListener('change', () => onChange(box.checked));
    return el('label', { class: 'check' }, [box, ` ${name}`]);
  }

  private say(text: string, kind: 'info' | 'error' | 'saved' = 'info'): void {
    this.status.textContent = text;
    this.status.dataset.kind = kind;
  }

  private touch(): void {
    this.dirty = true;
    this.root.setAttribute('data-editor-dirty', 'true');
  }

  private setTool(tool: Tool): void {
    this.tool = tool;
    this.drawing = [];
    for (const [t, b] of this.toolButtons) b.setAttribute('aria-pressed', String(t === tool));
    this.stage.dataset.tool = tool;
    this.say(
      tool === 'rectangle'
        ? m('status_rectangle')
        : tool === 'polygon'
          ? m('status_polygon')
          : m('status_select'),
    );
    this.renderShapes();
  }

  // ---- geometry in the stage ----

  private pointAt(e: PointerEvent | MouseEvent): Point {
    const r = this.overlay.getBoundingClientRect();
    return [round6(Math.min(1, Math.max(0, (e.clientX - r.left) / r.width))), round6(Math.min(1, Math.max(0, (e.clientY - r.top) / r.height)))];
  }

  private geometryOf(i: number): Geometry | null {
    return this.annotations[i]?.target?.selector.geometry ?? null;
  }

  private typeOf(i: number): ShapeType {
    return this.annotations[i]?.target?.selector.type ?? 'RECTANGLE';
  }

  private setGeometry(i: number, g: Geometry): void {
    const target = this.annotations[i]?.target;
    if (!target) return;
    target.selector.geometry = g;
    this.touch();
  }

  private add(type: ShapeType, g: Geometry): void {
    const id = uuid();
    this.annotations.push({
      id,
      bodies: [{ id: uuid(), annotation: id, value: '' }],
      properties: { needs_remediation: false, ai_likelihood: null },
      target: { annotation: id, selector: { type, geometry: g } },
    });
    this.selected = this.annotations.length - 1;
    this.touch();
    // Back to the select tool: the new shape is selected, with its handles, ready to adjust.
    this.setTool('select');
    this.say(m(type === 'RECTANGLE' ? 'added_rectangle' : 'added_polygon'));
    this.render();
  }

  private deleteSelected(): void {
    if (this.selected < 0) {
      this.say(m('select_first'));
      return;
    }
    this.annotations.splice(this.selected, 1);
    this.selected = Math.min(this.selected, this.annotations.length - 1);
    this.touch();
    this.say(m('deleted'));
    this.render();
    this.focusSelected();
  }

  private moveSelected(dx: number, dy: number): void {
    const g = this.geometryOf(this.selected);
    if (!g) return;
    this.setGeometry(this.selected, translate(this.typeOf(this.selected), g, dx, dy));
    this.render();
    this.focusSelected();
  }

  private select(i: number, focus = false): void {
    this.selected = i;
    this.render();
    if (focus) this.focusSelected();
  }

  private focusSelected(): void {
    this.overlay.querySelector<SVGElement>(`[data-index="${this.selected}"]`)?.focus();
  }

  // ---- pointer ----

  private bindPointer(): void {
    this.overlay.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      const p = this.pointAt(e);
      const t = e.target as Element;
      if (this.tool === 'rectangle') {
        this.drag = { kind: 'new-rect', index: -1, handle: 0, from: p, start: null };
      } else if (this.tool === 'polygon') {
        if (e.detail >= 2) return; // the double click's second press: finished by dblclick
        this.drawing.push(p);
        this.renderShapes();
        this.say(m('polygon_corners', { count: this.drawing.length }));
      } else {
        const handle = t.getAttribute('data-handle');
        const index = Number(t.getAttribute('data-index') ?? t.getAttribute('data-handle-of') ?? -1);
        if (handle !== null && index >= 0) {
          this.drag = { kind: this.typeOf(index) === 'RECTANGLE' ? 'corner' : 'vertex', index, handle: Number(handle), from: p, start: this.geometryOf(index) };
        } else if (index >= 0) {
          this.select(index, true);
          this.drag = { kind: 'move', index, handle: 0, from: p, start: this.geometryOf(index) };
        } else {
          this.select(-1);
        }
      }
      if (this.drag) this.overlay.setPointerCapture(e.pointerId);
      e.preventDefault();
    });
    this.overlay.addEventListener('pointermove', (e) => {
      const d = this.drag;
      if (!d) return;
      const p = this.pointAt(e);
      if (d.kind === 'new-rect') {
        this.renderShapes(rectangleGeometry(d.from[0], d.from[1], p[0], p[1]));
        return;
      }
      if (!d.start) return;
      const type = this.typeOf(d.index);
      const g =
        d.kind === 'move'
          ? translate(type, d.start, p[0] - d.from[0], p[1] - d.from[1])
          : d.kind === 'corner'
            ? resizeRectangle(d.start, d.handle, p[0], p[1])
            : moveVertex(d.start, d.handle, p[0], p[1]);
      this.setGeometry(d.index, g);
      this.renderShapes();
    });
    const end = (e: PointerEvent): void => {
      const d = this.drag;
      this.drag = null;
      if (!d) return;
      if (d.kind === 'new-rect') {
        const p = this.pointAt(e);
        const g = rectangleGeometry(d.from[0], d.from[1], p[0], p[1]);
        if (isUsable(g)) this.add('RECTANGLE', g);
        else this.renderShapes();
        return;
      }
      this.render();
      this.focusSelected();
    };
    this.overlay.addEventListener('pointerup', end);
    this.overlay.addEventListener('pointercancel', end);
    this.overlay.addEventListener('dblclick', () => {
      if (this.tool === 'polygon') this.finishPolygon();
    });
  }

  private finishPolygon(): void {
    const pts = this.drawing;
    this.drawing = [];
    if (pts.length < 3) {
      this.say(m('polygon_too_small'));
      this.renderShapes();
      return;
    }
    const g = polygonGeometry(pts);
    if (isUsable(g)) this.add('POLYGON', g);
    else this.renderShapes();
  }

  // ---- keyboard ----

  private onKey(e: KeyboardEvent): void {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void this.save();
      return;
    }
    if (isTyping(e.target)) {
      if (e.key === 'Escape') (e.target as HTMLElement).blur();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const onShape = e.target instanceof SVGElement && this.overlay.contains(e.target);
    switch (key) {
      case 'v': this.setTool('select'); break;
      case 'r': this.setTool('rectangle'); break;
      case 'p': this.setTool('polygon'); break;
      case 'Delete':
      case 'Backspace': this.deleteSelected(); break;
      case 'Escape':
        if (this.drawing.length) { this.drawing = []; this.renderShapes(); this.say(m('polygon_cancelled')); }
        else this.select(-1);
        break;
      case 'Enter':
        if (this.tool === 'polygon' && this.drawing.length) this.finishPolygon();
        else if (onShape) this.select(Number((e.target as Element).getAttribute('data-index')), true);
        else return;
        break;
      case ' ':
        if (!onShape) return;
        this.select(Number((e.target as Element).getAttribute('data-index')), true);
        break;
      case 'ArrowLeft':
      case 'ArrowRight':
      case 'ArrowUp':
      case 'ArrowDown': {
        if (this.selected < 0) return;
        const s = e.shiftKey ? BIG_STEP : STEP;
        const [dx, dy] = { ArrowLeft: [-s, 0], ArrowRight: [s, 0], ArrowUp: [0, -s], ArrowDown: [0, s] }[key] as [number, number];
        this.moveSelected(dx, dy);
        break;
      }
      case 'n': this.toDecision(null); break;
      default:
        if (key in DECISION_KEYS) this.toDecision(DECISION_KEYS[key]!);
        else return;
    }
    e.preventDefault();
  }

  /** Moves focus towards a decision; never presses it. */
  private toDecision(value: string | null): void {
    const note = document.querySelector<HTMLTextAreaElement>('#decision-note');
    if (!note) return;
    const button = value ? document.querySelector<HTMLButtonElement>(`[data-decision-form] button[value="${value}"]`) : null;
    if (!button || note.value.trim() === '') {
      note.focus();
      if (button) this.say(m('note_first', { button: button.textContent ?? '' }));
      return;
    }
    button.focus();
    this.say(m('press_enter', { button: button.textContent ?? '' }));
  }

  // ---- rendering ----

  private render(): void {
    this.renderShapes();
    this.renderList();
    this.renderDetails();
    this.deleteButton.disabled = this.selected < 0;
  }

  private renderShapes(preview: Geometry | null = null): void {
    const nodes: SVGElement[] = [];
    this.annotations.forEach((a, i) => {
      const sel = a.target?.selector;
      if (!sel) return;
      const g = sel.geometry;
      const remediation = a.properties?.needs_remediation === true;
      const common = {
        class: `annotation${remediation ? ' needs-remediation' : ''}${i === this.selected ? ' selected' : ''}`,
        tabindex: 0,
        role: 'button',
        'aria-label': `${this.labelOf(i)}${i === this.selected ? ` ${m('selected')}` : ''}`,
        'aria-pressed': String(i === this.selected),
        'data-index': i,
        'data-shape': sel.type,
        'data-min-x': g.bounds.minX,
        'data-min-y': g.bounds.minY,
        'data-max-x': g.bounds.maxX,
        'data-max-y': g.bounds.maxY,
        'vector-effect': 'non-scaling-stroke',
      };
      const shape =
        sel.type === 'POLYGON'
          ? svg('polygon', { ...common, points: pointsOf(g).map((p) => p.join(',')).join(' ') })
          : svg('rect', { ...common, x: g.bounds.minX, y: g.bounds.minY, width: g.bounds.maxX - g.bounds.minX, height: g.bounds.maxY - g.bounds.minY });
      shape.addEventListener('focus', () => {
        if (this.selected !== i && !this.drag) this.select(i, true);
      });
      nodes.push(shape);
    });
    // Handles of the selection (select tool): corners of a rectangle, vertices of a polygon.
    const g = this.geometryOf(this.selected);
    if (g && this.tool === 'select') {
      const corners: Point[] =
        this.typeOf(this.selected) === 'RECTANGLE'
          ? [[g.bounds.minX, g.bounds.minY], [g.bounds.maxX, g.bounds.minY], [g.bounds.maxX, g.bounds.maxY], [g.bounds.minX, g.bounds.maxY]]
          : pointsOf(g);
      corners.forEach(([x, y], k) => {
        nodes.push(svg('circle', { cx: x, cy: y, r: 0.012, class: 'editor-handle', 'data-handle': k, 'data-handle-of': this.selected, 'vector-effect': 'non-scaling-stroke' }));
      });
    }
    if (preview) nodes.push(svg('rect', { class: 'editor-draft', x: preview.bounds.minX, y: preview.bounds.minY, width: preview.bounds.maxX - preview.bounds.minX, height: preview.bounds.maxY - preview.bounds.minY, 'vector-effect': 'non-scaling-stroke' }));
    if (this.drawing.length) {
      nodes.push(svg('polyline', { class: 'editor-draft', points: this.drawing.map((p) => p.join(',')).join(' '), 'vector-effect': 'non-scaling-stroke' }));
      for (const [x, y] of this.drawing) nodes.push(svg('circle', { cx: x, cy: y, r: 0.008, class: 'editor-handle draft', 'vector-effect': 'non-scaling-stroke' }));
    }
    this.overlay.replaceChildren(...nodes);
  }

  private labelOf(i: number): string {
    const a = this.annotations[i];
    const first = a?.bodies?.[0]?.value.trim();
    return `${m(a?.target?.selector.type === 'POLYGON' ? 'label_polygon' : 'label_rectangle', { n: i + 1 })}${first ? `: ${first.slice(0, 60)}` : ''}`;
  }

  private renderList(): void {
    if (!this.annotations.length) {
      this.list.replaceChildren(el('li', { class: 'muted' }, [m('no_annotations')]));
      return;
    }
    this.list.replaceChildren(
      ...this.annotations.map((a, i) => {
        const b = el('button', { type: 'button', class: 'editor-link', 'aria-pressed': String(i === this.selected), 'data-select-annotation': String(i) });
        b.textContent = this.labelOf(i);
        b.addEventListener('click', () => this.select(i, true));
        return el('li', { class: a.properties?.needs_remediation ? 'needs-remediation' : '' }, [b]);
      }),
    );
  }

  private renderDetails(): void {
    const i = this.selected;
    const a = this.annotations[i];
    if (!a) {
      this.details.replaceChildren(el('p', { class: 'muted' }, [m('select_hint')]));
      return;
    }
    const id = a.id ?? '';
    a.bodies ??= [];
    a.properties ??= {};
    const props = a.properties;
    // The legend names the shape only: its body is in the textbox right below.
    const fields = el('fieldset', { class: 'editor-selection', 'data-selection': String(i) }, [
      el('legend', {}, [m(this.typeOf(i) === 'POLYGON' ? 'label_polygon' : 'label_rectangle', { n: i + 1 })]),
    ]);
    a.bodies.forEach((body, k) => {
      const fieldId = `editor-body-${k}`;
      const area = el('textarea', { id: fieldId, rows: '3', maxlength: '10000', 'data-body': String(k) });
      area.value = body.value;
      area.addEventListener('input', () => {
        body.value = area.value;
        this.touch();
        this.renderShapes();
        this.renderList();
      });
      const remove = el('button', { type: 'button', class: 'editor-link', 'aria-label': m('remove_body', { n: k + 1 }) }, [m('remove')]);
      remove.addEventListener('click', () => {
        a.bodies!.splice(k, 1);
        this.touch();
        this.render();
      });
      fields.append(el('label', { for: fieldId }, [k === 0 ? m('body') : m('body_n', { n: k + 1 })]), area, remove);
    });
    const addBody = el('button', { type: 'button', class: 'editor-link' }, [m('add_body')]);
    addBody.addEventListener('click', () => {
      a.bodies!.push({ id: uuid(), annotation: id, value: '' });
      this.touch();
      this.render();
      this.details.querySelector<HTMLTextAreaElement>(`[data-body="${a.bodies!.length - 1}"]`)?.focus();
    });
    const flag = el('input', { type: 'checkbox', id: 'editor-needs-remediation' });
    flag.checked = props.needs_remediation === true;
    flag.addEventListener('change', () => {
      props.needs_remediation = flag.checked;
      this.touch();
      this.renderShapes();
      this.renderList();
    });
    const likelihood = el('input', { type: 'number', id: 'editor-ai-likelihood', min: '0', max: '1', step: '0.01' });
    likelihood.value = props.ai_likelihood === null || props.ai_likelihood === undefined ? '' : String(props.ai_likelihood);
    likelihood.addEventListener('input', () => {
      const v = likelihood.value.trim();
      props.ai_likelihood = v === '' ? null : Number(v);
      this.touch();
    });
    const b = this.geometryOf(i)?.bounds;
    fields.append(
      addBody,
      el('label', { class: 'check', for: 'editor-needs-remediation' }, [flag, ` ${m('needs_remediation')}`]),
      el('label', { for: 'editor-ai-likelihood' }, [m('ai_likelihood')]),
      likelihood,
      el('p', { class: 'muted', 'data-bounds': '' }, [b ? `x ${b.minX.toFixed(3)}–${b.maxX.toFixed(3)}, y ${b.minY.toFixed(3)}–${b.maxY.toFixed(3)}` : '']),
    );
    this.details.replaceChildren(fields);
  }

  // ---- saving ----

  private orderNumbers(): { remediation: number; confidence: number } | null {
    const confidence = Number(this.confidence.value);
    if (this.confidence.value.trim() === '' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
      this.say(m('confidence_invalid'), 'error');
      this.confidence.focus();
      return null;
    }
    for (const [i, a] of this.annotations.entries()) {
      const v = a.properties?.ai_likelihood;
      if (v !== null && v !== undefined && (!Number.isFinite(v) || v < 0 || v > 1)) {
        this.select(i);
        this.say(m('likelihood_invalid'), 'error');
        this.details.querySelector<HTMLInputElement>('#editor-ai-likelihood')?.focus();
        return null;
      }
    }
    return { remediation: Number(this.remediation.value), confidence };
  }

  private async save(): Promise<void> {
    const numbers = this.orderNumbers();
    if (!numbers) return;
    this.saveButton.disabled = true;
    this.say(m('saving'));
    this.root.setAttribute('data-editor-saving', 'true');
    try {
      const response = await fetch(this.root.dataset.editsUrl ?? '', {
        method: 'PUT',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': this.root.dataset.csrf ?? '' },
        body: JSON.stringify({ claim_id: this.root.dataset.claimId, annotations: this.annotations, ...numbers }),
      });
      if (response.ok) {
        const saved = (await response.json()) as { annotations: Annotation[]; remediation: number; confidence: number };
        this.annotations = saved.annotations;
        this.selected = Math.min(this.selected, this.annotations.length - 1);
        this.dirty = false;
        this.root.setAttribute('data-editor-dirty', 'false');
        this.render();
        this.say(m('saved', { time: new Date().toLocaleTimeString(document.documentElement.lang || undefined) }), 'saved');
        this.root.dataset.editorSaved = String(Number(this.root.dataset.editorSaved ?? '0') + 1);
      } else {
        this.say(await this.refusal(response), 'error');
      }
    } catch {
      this.say(m('offline'), 'error');
    } finally {
      this.saveButton.disabled = false;
      this.root.removeAttribute('data-editor-saving');
    }
  }

  private async refusal(response: Response): Promise<string> {
    let detail = '';
    try {
      const body = (await response.json()) as { detail?: unknown };
      if (typeof body.detail === 'string') detail = body.detail;
      else if (Array.isArray(body.detail)) detail = body.detail.map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join('.')}: ${d.msg ?? ''}`).join('; ');
    } catch {
      // Not JSON: the status says enough.
    }
    if (response.status === 409) return m('claim_lost', { detail: detail || m('claim_lost_default') });
    return m('refused', { status: response.status, detail: detail || response.statusText });
  }
}

start();
