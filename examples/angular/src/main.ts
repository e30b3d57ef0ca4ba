import { provideHttpClient, withFetch } from '@angular/common/http';
import { provideZonelessChangeDetection } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { AppComponent } from './app/app.component';
import { ToolChatComponent } from './app/tool-chat.component';

// withFetch(): the fetch backend, which reports the body as it arrives (XMLHttpRequest's progress
// events would too, but fetch is what Angular recommends and what server rendering uses).
// `?question=` opens the tool loop's page; any other address, the streamed reply's.
const root = new URLSearchParams(location.search).has('question') ? ToolChatComponent : AppComponent;
bootstrapApplication(root, {
  providers: [provideZonelessChangeDetection(), provideHttpClient(withFetch())],
}).catch((error: unknown) => console.error(error));
