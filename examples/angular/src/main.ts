import { provideHttpClient, withFetch } from '@angular/common/http';
import { provideZonelessChangeDetection } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { AppComponent } from './app/app.component';

// withFetch(): the fetch backend, which reports the body as it arrives (XMLHttpRequest's progress
// events would too, but fetch is what Angular recommends and what server rendering uses).
bootstrapApplication(AppComponent, {
  providers: [provideZonelessChangeDetection(), provideHttpClient(withFetch())],
}).catch((error: unknown) => console.error(error));
