// certdesk web application: the write side. Loaded by the upload page (/orders/new) and the order page.
// - Upload page: files chosen or dropped are announced (POST /orders/uploads), sent straight to object
//   storage with the presigned PUT (XMLHttpRequest, for a progress bar per file), then each becomes an
//   order (POST /orders/new).
// - Order page: while the order is In Progress, its progress is polled and the state badges and the
//   analysis list are redrawn; the response form (Action Required) uploads evidence the same way.
// Every message comes from data-msg-* attributes rendered by the server in the page language.

/** POST /orders/uploads: where and how to send the file's bytes. */
interface UploadTicket {
  upload_id: string;
  upload_url: string;
  upload_method?: string;
  upload_headers?: Record<string, string>;
}

/** POST /orders/new: the order the upload became. */
interface CreatedOrder {
  order_id: string;
  order_title: string;
  order_url: string;
}

interface AnalysisLine {
  analysis_type: string;
  analysis_passed: boolean;
}

/** GET /orders/{id}/progress. */
interface OrderProgress {
  order_state: string;
  state_class: string;
  analysing: boolean;
  asset_preview_url: string | null;
  analysis_list?: AnalysisLine[];
}

/** POST /orders/{id}/responses. */
interface ResponseResult {
  order_state: string;
  state_class: string;
}

type ItemState = 'waiting' | 'uploading' | 'creating' | 'created' | 'uploaded' | 'error';

interface UploadItem {
  file: File;
  li: HTMLLIElement;
  uploadId: string | null;
  removed?: boolean;
  setState(state: ItemState, text: string): void;
  setProgress(value: number): void;
  showOrder(order: CreatedOrder): void;
}

type Vars = Record<string, string | number>;

/** A message of `el` (data-msg-<name>) with {placeholders} filled. */
function message(el: Element, name: string, vars?: Vars): string {
  const template = el.getAttribute('data-msg-' + name) || '';
  return template.replace(/\{([a-z_]+)\}/g, (whole, key: string) => (vars && key in vars ? String(vars[key]) : whole));
}

/** The message of a caught error ('' for anything that is not an Error). */
function errorText(err: unknown): string {
  return err instanceof Error ? err.message : '';
}

/** "1.2 MiB": the size of a file for the list (units are the same in every language). */
function formatSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return new Intl.NumberFormat(document.documentElement.lang, { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value) + ' ' + units[unit];
}

/** POSTs JSON with the session's CSRF token; resolves to the parsed body, rejects with a message. */
async function postJson<T>(url: string, csrf: string, body: unknown, el: Element): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify(body),
    });
  } catch {
    throw new Error(message(el, 'network-error'));
  }
  let data: unknown = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = data !== null && typeof data === 'object' ? (data as { error?: unknown }).error : undefined;
    throw new Error(typeof error === 'string' ? error : message(el, 'server-error'));
  }
  return data as T;
}

/** Sends a file's bytes with a presigned PUT, reporting progress (0..100). */
function putFile(ticket: UploadTicket, file: File, onProgress: (percent: number) => void, el: Element): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(ticket.upload_method || 'PUT', ticket.upload_url);
    Object.entries(ticket.upload_headers || {}).forEach(([name, value]) => xhr.setRequestHeader(name, value));
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(Math.round((event.loaded / event.total) * 100));
    });
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(100);
        resolve();
      } else {
        reject(new Error(message(el, 'transfer-failed', { status: xhr.status })));
      }
    });
    xhr.addEventListener('error', () => reject(new Error(message(el, 'network-error'))));
    xhr.send(file);
  });
}

/** One row of an upload list: name, size, progress bar, status; a remove button until it is sent. */
function uploadItem(list: Element, file: File, form: HTMLFormElement): UploadItem {
  const li = document.createElement('li');
  li.className = 'upload-item';
  li.setAttribute('data-state', 'waiting');
  li.setAttribute('data-file-name', file.name);
  const name = document.createElement('span');
  name.className = 'upload-name';
  name.textContent = file.name;
  const size = document.createElement('span');
  size.className = 'upload-size muted';
  size.textContent = formatSize(file.size);
  const progress = document.createElement('progress');
  progress.max = 100;
  progress.value = 0;
  progress.setAttribute('aria-label', file.name);
  const status = document.createElement('span');
  status.className = 'upload-status';
  status.textContent = message(form, 'waiting');
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'upload-remove';
  remove.textContent = '×';
  remove.setAttribute('aria-label', message(form, 'remove', { name: file.name }));
  li.append(name, size, progress, status, remove);
  list.append(li);
  const item: UploadItem = {
    file,
    li,
    uploadId: null,
    setState(state, text) {
      li.setAttribute('data-state', state);
      status.textContent = text;
      // A file that failed may be removed from the list (or is tried again on the next submit).
      remove.hidden = state !== 'waiting' && state !== 'error';
    },
    setProgress(value) {
      progress.value = value;
    },
    showOrder(order) {
      li.setAttribute('data-state', 'created');
      li.setAttribute('data-order-id', order.order_id);
      status.textContent = message(form, 'created') + ' ';
      const link = document.createElement('a');
      link.href = order.order_url;
      link.textContent = order.order_title;
      status.append(link);
      remove.hidden = true;
    },
  };
  remove.addEventListener('click', () => {
    li.remove();
    item.removed = true;
  });
  return item;
}

/** Announces and sends one file; resolves to its upload id. */
async function sendFile(form: HTMLFormElement, item: UploadItem, purpose: 'order' | 'evidence'): Promise<string> {
  item.setState('uploading', message(form, 'uploading'));
  const ticket = await postJson<UploadTicket>(
    form.getAttribute('data-announce-url') ?? '',
    form.getAttribute('data-csrf') ?? '',
    { file_name: item.file.name, content_type: item.file.type || 'application/octet-stream', size: item.file.size, purpose },
    form,
  );
  await putFile(ticket, item.file, (value) => item.setProgress(value), form);
  return ticket.upload_id;
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function inPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = items.slice();
  const runners = Array.from({ length: Math.min(limit, queue.length) }, async () => {
    while (queue.length) await work(queue.shift() as T);
  });
  await Promise.all(runners);
}

interface FileCollector {
  /** Items not sent yet (new ones, and ones that failed: they are tried again). */
  pending(): UploadItem[];
  /** Every item still in the list. */
  all(): UploadItem[];
}

/** A file list fed by a file input and, when there is one, a drop zone. */
function fileCollector(form: HTMLFormElement, input: HTMLInputElement, dropzone: HTMLElement | null): FileCollector {
  const list = form.querySelector('[data-upload-list]');
  let items: UploadItem[] = [];
  const add = (files: FileList | null): void => {
    if (!list || !files) return;
    Array.from(files).forEach((file) => items.push(uploadItem(list, file, form)));
    items = items.filter((i) => !i.removed);
  };
  input.addEventListener('change', () => {
    add(input.files);
    input.value = '';
  });
  if (dropzone) {
    ['dragenter', 'dragover'].forEach((type) =>
      dropzone.addEventListener(type, (event) => {
        event.preventDefault();
        dropzone.classList.add('dragging');
      }),
    );
    ['dragleave', 'drop'].forEach((type) => dropzone.addEventListener(type, () => dropzone.classList.remove('dragging')));
    dropzone.addEventListener('drop', (event) => {
      event.preventDefault();
      if (event.dataTransfer && event.dataTransfer.files) add(event.dataTransfer.files);
    });
  }
  const all = (): UploadItem[] => (items = items.filter((i) => !i.removed));
  return {
    pending: () => all().filter((i) => i.li.getAttribute('data-state') === 'waiting' || i.li.getAttribute('data-state') === 'error'),
    all,
  };
}

function showFormError(form: HTMLFormElement, text: string): void {
  const box = form.querySelector<HTMLElement>('[data-form-error]');
  if (!box) return;
  box.textContent = text || '';
  box.hidden = !text;
}

/** The value of a named text field of `form` ('' when there is none). */
function fieldValue(form: HTMLFormElement, name: string): string {
  const field = form.elements.namedItem(name);
  return field instanceof HTMLInputElement || field instanceof HTMLSelectElement || field instanceof HTMLTextAreaElement ? field.value : '';
}

function setUpUploadPage(): void {
  const form = document.getElementById('upload-form');
  if (!(form instanceof HTMLFormElement)) return;
  const input = form.querySelector<HTMLInputElement>('input[type="file"]');
  const summary = form.querySelector('[data-upload-summary]');
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  if (!input || !summary || !submit) return;
  const collector = fileCollector(form, input, form.querySelector<HTMLElement>('[data-dropzone]'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const title = fieldValue(form, 'order_title').trim();
    const projectId = fieldValue(form, 'project_id') || null;
    const pending = collector.pending();
    if (!title) return showFormError(form, message(form, 'no-title'));
    if (!pending.length) return showFormError(form, message(form, 'no-files'));
    showFormError(form, '');
    submit.disabled = true;
    summary.textContent = '';
    let created = 0;
    const several = pending.length > 1;
    await inPool(pending, 2, async (item) => {
      try {
        item.setProgress(0);
        const uploadId = await sendFile(form, item, 'order');
        item.setState('creating', message(form, 'creating'));
        const order = await postJson<CreatedOrder>(
          form.getAttribute('data-create-url') ?? '',
          form.getAttribute('data-csrf') ?? '',
          { upload_id: uploadId, project_id: projectId, order_title: several ? title + ' (' + item.file.name + ')' : title },
          form,
        );
        item.showOrder(order);
        created++;
      } catch (err) {
        item.setState('error', errorText(err));
      }
    });
    summary.textContent = message(form, 'done', { created, total: pending.length });
    submit.disabled = false;
  });
}

/** Redraws the analysis lines as the server renders them. */
function drawAnalysis(container: Element, lines: readonly AnalysisLine[]): void {
  const label = (name: string): string => container.getAttribute('data-label-' + name) || '';
  container.textContent = '';
  if (!lines.length) {
    const p = document.createElement('p');
    p.textContent = label('none');
    container.append(p);
    return;
  }
  const table = document.createElement('table');
  table.className = 'data';
  const head = table.createTHead().insertRow();
  [label('check'), label('result')].forEach((text) => {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = text;
    head.append(th);
  });
  const body = table.createTBody();
  lines.forEach((line) => {
    const row = body.insertRow();
    row.setAttribute('data-analysis-type', line.analysis_type);
    row.insertCell().textContent = line.analysis_type;
    const badge = document.createElement('span');
    badge.className = 'badge analysis-' + (line.analysis_passed ? 'pass' : 'fail');
    badge.textContent = line.analysis_passed ? '✓ ' + label('passed') : '✗ ' + label('failed');
    row.insertCell().append(badge);
  });
  container.append(table);
}

function showState(state: string, stateClass: string): void {
  document.querySelectorAll('[data-live-state]').forEach((badge) => {
    badge.textContent = state;
    badge.className = 'badge ' + stateClass;
  });
  const respond = document.querySelector<HTMLElement>('[data-live-respond]');
  if (respond) respond.hidden = state !== 'Action Required';
}

/** The preview the analysis rendered, in place of "No preview" (annotations need a reload). */
function showPreview(url: string | null, status: Element): void {
  const placeholder = document.querySelector('.no-preview.large');
  if (!url || !placeholder) return;
  const img = document.createElement('img');
  img.className = 'overlay-image';
  img.src = url;
  img.alt = status.getAttribute('data-msg-preview-alt') || '';
  img.setAttribute('data-live-preview', '');
  placeholder.replaceWith(img);
}

/** Polls the order's progress while its analysis may still change it. */
function setUpLiveOrder(): void {
  const status = document.querySelector('[data-live-order]');
  if (!status || status.getAttribute('data-state') !== 'In Progress') return;
  const analysis = document.querySelector('[data-live-analysis]');
  const url = status.getAttribute('data-progress-url') ?? '';
  let shown = JSON.stringify(null);
  const poll = async (): Promise<void> => {
    let data: OrderProgress;
    try {
      const response = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' }, cache: 'no-store' });
      if (!response.ok) throw new Error(String(response.status));
      data = (await response.json()) as OrderProgress;
    } catch {
      status.textContent = message(status, 'stopped');
      return;
    }
    const lines = data.analysis_list || [];
    if (JSON.stringify(lines) !== shown && analysis) {
      drawAnalysis(analysis, lines);
      shown = JSON.stringify(lines);
    }
    showState(data.order_state, data.state_class);
    showPreview(data.asset_preview_url, status);
    status.setAttribute('data-state', data.order_state);
    if (data.analysing) {
      status.textContent = message(status, 'running');
      setTimeout(poll, 1000);
    } else if (!status.hasAttribute('data-responded')) {
      status.textContent = data.order_state === 'In Progress' ? message(status, 'waiting') : message(status, 'done', { state: data.order_state });
    }
  };
  // The first look comes at once: a settled order says so, a running analysis starts the polling.
  if (!(status.textContent ?? '').trim()) void poll();
}

function setUpResponseForm(): void {
  const form = document.querySelector('[data-response-form]');
  if (!(form instanceof HTMLFormElement)) return;
  const input = form.querySelector<HTMLInputElement>('input[type="file"]');
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  if (!input || !submit) return;
  const collector = fileCollector(form, input, null);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = fieldValue(form, 'message').trim();
    if (!text) return showFormError(form, message(form, 'no-message'));
    showFormError(form, '');
    const original = submit.textContent;
    submit.disabled = true;
    submit.textContent = message(form, 'sending');
    let failed = false;
    await inPool(collector.pending(), 2, async (item) => {
      try {
        item.uploadId = await sendFile(form, item, 'evidence');
        item.setState('uploaded', message(form, 'uploaded'));
      } catch (err) {
        failed = true;
        item.setState('error', errorText(err));
      }
    });
    // Files sent by an earlier attempt whose response failed are not sent again.
    const uploadIds = collector
      .all()
      .map((item) => item.uploadId)
      .filter((id): id is string => id !== null);
    try {
      if (failed) throw new Error('');
      const result = await postJson<ResponseResult>(
        form.getAttribute('data-response-url') ?? '',
        form.getAttribute('data-csrf') ?? '',
        { message: text, upload_ids: uploadIds },
        form,
      );
      showState(result.order_state, result.state_class);
      const status = document.querySelector('[data-live-order]');
      if (status) {
        status.setAttribute('data-responded', '');
        status.setAttribute('data-state', result.order_state);
        status.textContent = message(form, 'sent');
      }
    } catch (err) {
      const problem = errorText(err);
      if (problem) showFormError(form, problem);
    } finally {
      submit.disabled = false;
      submit.textContent = original;
    }
  });
}

document.addEventListener('DOMContentLoaded', () => {
  setUpUploadPage();
  setUpLiveOrder();
  setUpResponseForm();
});
