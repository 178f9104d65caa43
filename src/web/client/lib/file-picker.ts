// The verify pages' file input and drop zone: one file, chosen or dropped, goes to `onFile`.

/** Calls `onFile` with the file chosen in `input` or dropped on `dropZone` (which shows `dragging` meanwhile). */
export function onFileChosen(input: HTMLInputElement, dropZone: HTMLElement, onFile: (file: File) => void): void {
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file) onFile(file);
  });
  dropZone.addEventListener('dragover', (event) => {
    event.preventDefault();
    dropZone.classList.add('dragging');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('dragging'));
  dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    dropZone.classList.remove('dragging');
    const file = event.dataTransfer?.files[0];
    if (file) onFile(file);
  });
}
